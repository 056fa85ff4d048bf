// RUNTIME ERROR: reads the boards as exactly 8 lines of 4 characters, not expecting the optional
// empty line between them. On an input with that line (sample 1 has one) row 5 is empty and
// indexing its characters panics (exit code 101).
use std::collections::VecDeque;
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let rows: Vec<&[u8]> = s.lines().take(8).map(str::as_bytes).collect();
    let mut boards = [0u32; 2];
    for (r, row) in rows.iter().enumerate() {
        for c in 0..4 {
            boards[r / 4] |= u32::from(row[c] - b'0') << (4 * (r % 4) + c);
        }
    }
    let [start, target] = boards;
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
            let next = b ^ (1 << x) ^ (1 << y);
            if (b >> x & 1) != (b >> y & 1) && !seen[next as usize] {
                seen[next as usize] = true;
                parent[next as usize] = Some((b, i));
                queue.push_back(next);
            }
        }
    }
    let mut moves = Vec::new();
    let mut b = target;
    while b != start {
        let (prev, i) = parent[b as usize].unwrap();
        moves.push(swaps[i]);
        b = prev;
    }
    moves.reverse();
    let mut out = format!("{}\n", moves.len());
    for (x, y) in moves {
        out.push_str(&format!("{}{}{}{}\n", x / 4 + 1, x % 4 + 1, y / 4 + 1, y % 4 + 1));
    }
    print!("{out}");
}
