import scala.collection.mutable.ArrayBuffer
import scala.io.StdIn

// Allocates and touches 1 GiB in 16 MiB blocks, all kept live.
object Main {
  def main(args: Array[String]): Unit = {
    val Array(a, b) = StdIn.readLine().trim.split("\\s+").map(_.toLong)
    val blocks = ArrayBuffer[Array[Long]]()
    for (i <- 0 until 64) {
      val block = new Array[Long](2 << 20)
      java.util.Arrays.fill(block, i.toLong)
      blocks += block
    }
    val s = blocks.map(bl => bl(bl.length - 1)).sum
    println(a + b + s - s)
  }
}
