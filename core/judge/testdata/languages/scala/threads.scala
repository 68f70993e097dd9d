import scala.io.StdIn

// Four threads each sum a quarter of 1..4000000; the total is checked before a+b.
object Main {
  def main(args: Array[String]): Unit = {
    val Array(a, b) = StdIn.readLine().trim.split("\\s+").map(_.toLong)
    val n = 4000000L
    val parts = new Array[Long](4)
    val threads = (0 until 4).map { t =>
      new Thread(new Runnable {
        def run(): Unit = {
          var s = 0L
          var i = t * n / 4 + 1
          while (i <= (t + 1) * n / 4) { s += i; i += 1 }
          parts(t) = s
        }
      })
    }
    threads.foreach(_.start())
    threads.foreach(_.join())
    require(parts.sum == n * (n + 1) / 2)
    println(a + b)
  }
}
