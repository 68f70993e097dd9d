import scala.io.StdIn

object Main {
  def main(args: Array[String]): Unit = {
    val Array(a, b) = StdIn.readLine().trim.split("\\s+").map(_.toLong)
    println(a + b + 1)
  }
}
