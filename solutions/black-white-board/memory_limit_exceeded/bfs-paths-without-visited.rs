// TOO MUCH MEMORY: breadth-first search in which every queue entry carries its whole move list
// and boards are never marked as visited, so each board is queued again along every path that
// reaches it. Right answers for short distances, but the queue grows ~10x per level and passes
// 128 MiB long before a 10+ move answer is found.
use std::collections::VecDeque;
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let digits: Vec<u32> = s.bytes().filter(u8::is_ascii_digit).map(|b| (b - b'0') as u32).collect();
    let board = |part: &[u32]| part.iter().enumerate().fold(0u32, |acc, (i, &d)| acc | d << i);
    let (start, target) = (board(&digits[..16]), board(&digits[16..32]));
    let mut swaps = Vec::new();
    for cell in 0..16 {
        if cell % 4 < 3 {
            swaps.push((cell, cell + 1));
        }
        if cell < 12 {
            swaps.push((cell, cell + 4));
        }
    }
    let mut queue: VecDeque<(u32, Vec<(u32, u32)>)> = VecDeque::from([(start, Vec::new())]);
    while let Some((b, moves)) = queue.pop_front() {
        if b == target {
            let mut out = format!("{}\n", moves.len());
            for (x, y) in moves {
                out.push_str(&format!("{}{}{}{}\n", x / 4 + 1, x % 4 + 1, y / 4 + 1, y % 4 + 1));
            }
            print!("{out}");
            return;
        }
        for &(x, y) in &swaps {
            if (b >> x & 1) != (b >> y & 1) {
                let mut longer = moves.clone();
                longer.push((x, y));
                queue.push_back((b ^ (1 << x) ^ (1 << y), longer));
            }
        }
    }
}
