// Four threads each sum a quarter of 1..4000000; the total is checked before a+b.
fun main() {
    val (a, b) = readLine()!!.trim().split(Regex("\\s+")).map { it.toLong() }
    val n = 4_000_000L
    val parts = LongArray(4)
    val threads = (0 until 4).map { t ->
        Thread {
            var s = 0L
            var i = t * n / 4 + 1
            while (i <= (t + 1) * n / 4) { s += i; i++ }
            parts[t] = s
        }
    }
    threads.forEach { it.start() }
    threads.forEach { it.join() }
    check(parts.sum() == n * (n + 1) / 2)
    println(a + b)
}
