// Allocates and touches 100 MiB in 1 MiB blocks, kept live until the answer is printed.
fun main() {
    val (a, b) = readLine()!!.trim().split(Regex("\\s+")).map { it.toLong() }
    val blocks = ArrayList<LongArray>()
    for (i in 0 until 100) {
        val block = LongArray(1 shl 17)
        block.fill(i.toLong())
        blocks.add(block)
    }
    var s = 0L
    for (block in blocks) s += block[block.size - 1]
    check(s == 4950L)
    println(a + b)
}
