import scala.collection.mutable.ArrayBuffer
import scala.io.StdIn

// Allocates and touches 100 MiB in 1 MiB blocks, kept live until the answer is printed.
object Main {
  def main(args: Array[String]): Unit = {
    val Array(a, b) = StdIn.readLine().trim.split("\\s+").map(_.toLong)
    val blocks = ArrayBuffer[Array[Long]]()
    for (i <- 0 until 100) {
      val block = new Array[Long](1 << 17)
      java.util.Arrays.fill(block, i.toLong)
      blocks += block
    }
    val s = blocks.map(bl => bl(bl.length - 1)).sum
    require(s == 4950L)
    println(a + b)
  }
}
