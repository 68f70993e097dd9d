fn main() {
    let v = vec![1u8; 1 << 30];
    println!("{}", v[12345]);
}
