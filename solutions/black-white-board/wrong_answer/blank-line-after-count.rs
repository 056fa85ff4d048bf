// WRONG: prints an empty line after the move count (`\n\n`), i.e. an extra blank move line.
use std::collections::VecDeque;
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let digits: Vec<u32> = s.bytes().filter(u8::is_ascii_digit).map(|b| (b - b'0') as u32).collect();
    let board = |part: &[u32]| part.iter().enumerate().fold(0u32, |acc, (i, &d)| acc | d << i);
    let (start, target) = (board(&digits[..16]), board(&digits[16..32]));
    // Every swap of two edge-adjacent cells, as (cell, cell) with cell = 4 * row + column.
    let mut swaps = Vec::new();
    for cell in 0..16 {
        if cell % 4 < 3 {
            swaps.push((cell, cell + 1));
        }
        if cell < 12 {
            swaps.push((cell, cell + 4));
        }
    }
    let mut parent: Vec<Option<(u32, usize)>> = vec![None; 1 << 16];
    let mut seen = vec![false; 1 << 16];
    seen[start as usize] = true;
    let mut queue = VecDeque::from([start]);
    while let Some(b) = queue.pop_front() {
        if b == target {
            break;
        }
        for (i, &(x, y)) in swaps.iter().enumerate() {
            if (b >> x & 1) == (b >> y & 1) {
                continue;
            }
            let next = b ^ (1 << x) ^ (1 << y);
            if !seen[next as usize] {
                seen[next as usize] = true;
                parent[next as usize] = Some((b, i));
                queue.push_back(next);
            }
        }
    }
    let mut moves = Vec::new();
    let mut b = target;
    while b != start {
        let (prev, i) = parent[b as usize].expect("both boards have the same number of 1s");
        moves.push(swaps[i]);
        b = prev;
    }
    moves.reverse();
    let mut out = format!("{}\n\n", moves.len());
    for (x, y) in moves {
        out.push_str(&format!("{}{}{}{}\n", x / 4 + 1, x % 4 + 1, y / 4 + 1, y % 4 + 1));
    }
    print!("{out}");
}
