fn main() {
    let p: *mut i32 = std::ptr::null_mut();
    unsafe { std::ptr::write_volatile(p, 42) };
    println!("{}", unsafe { std::ptr::read_volatile(p) });
}
