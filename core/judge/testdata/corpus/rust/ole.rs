use std::io::Write;

fn main() {
    let out = std::io::stdout();
    let mut w = std::io::BufWriter::new(out.lock());
    let line = vec![b'x'; 65536];
    loop {
        w.write_all(&line).unwrap();
    }
}
