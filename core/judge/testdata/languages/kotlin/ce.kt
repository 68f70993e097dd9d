fun main() {
    val a: Long = "not a number"
    println(a
}
