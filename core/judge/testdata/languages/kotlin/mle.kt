// Allocates and touches 1 GiB in 16 MiB blocks, all kept live.
fun main() {
    val (a, b) = readLine()!!.trim().split(Regex("\\s+")).map { it.toLong() }
    val blocks = ArrayList<LongArray>()
    for (i in 0 until 64) {
        val block = LongArray(2 shl 20)
        block.fill(i.toLong())
        blocks.add(block)
    }
    var s = 0L
    for (block in blocks) s += block[block.size - 1]
    println(a + b + s - s)
}
