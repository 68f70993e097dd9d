object Main {
  def main(args: Array[String]): Unit = {
    val a: Long = "not a number"
    println(a
  }
}
