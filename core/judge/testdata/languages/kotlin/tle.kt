fun main() {
    val (a, b) = readLine()!!.trim().split(Regex("\\s+")).map { it.toLong() }
    var x = 0L
    while (x != -1L) {
        x = (x * 31 + 7) % 1000003
    }
    println(a + b + x)
}
