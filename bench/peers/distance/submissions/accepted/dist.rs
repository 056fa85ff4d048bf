use std::io::{self, Read, Write};

fn main() {
    let mut text = String::new();
    io::stdin().read_to_string(&mut text).unwrap();
    let numbers: Vec<i64> = text.split_whitespace().map(|w| w.parse().unwrap()).collect();
    let mut out = String::new();
    for pair in numbers.chunks(2) {
        out.push_str(&format!("{}\n", (pair[0] - pair[1]).abs()));
    }
    io::stdout().write_all(out.as_bytes()).unwrap();
}
