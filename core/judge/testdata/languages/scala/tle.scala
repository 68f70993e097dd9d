import scala.io.StdIn

object Main {
  def main(args: Array[String]): Unit = {
    val Array(a, b) = StdIn.readLine().trim.split("\\s+").map(_.toLong)
    var x = 0L
    while (x != -1L) {
      x = (x * 31 + 7) % 1000003
    }
    println(a + b + x)
  }
}
