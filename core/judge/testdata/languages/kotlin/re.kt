fun main() {
    val (a, b) = readLine()!!.trim().split(Regex("\\s+")).map { it.toLong() }
    throw IllegalStateException("no answer for ${a + b}")
}
