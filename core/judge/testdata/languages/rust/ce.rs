fn main() {
    let x: i64 = "not a number";
    println!("{}", x + undeclared)
}
