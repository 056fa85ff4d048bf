// TOO SLOW: iterative deepening without remembering visited boards. Always right when it
// finishes (depth by depth, so the first path found is a shortest one), but with about ten
// useful swaps per board it explores ~10^d paths at depth d: instant for the samples, hopeless for
// the 16-20 move tests (far-*, diameter-*).
use std::io::Read;

fn search(board: u32, target: u32, depth: usize, last: usize, swaps: &[(u32, u32)], path: &mut Vec<usize>) -> bool {
    if board == target {
        return true;
    }
    if depth == 0 {
        return false;
    }
    for (i, &(x, y)) in swaps.iter().enumerate() {
        // Undoing the previous swap can never help a shortest path.
        if i == last || (board >> x & 1) == (board >> y & 1) {
            continue;
        }
        path.push(i);
        if search(board ^ (1 << x) ^ (1 << y), target, depth - 1, i, swaps, path) {
            return true;
        }
        path.pop();
    }
    false
}

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
    let mut path = Vec::new();
    let mut depth = 0;
    while !search(start, target, depth, usize::MAX, &swaps, &mut path) {
        depth += 1;
    }
    let mut out = format!("{}\n", path.len());
    for i in path {
        let (x, y) = swaps[i];
        out.push_str(&format!("{}{}{}{}\n", x / 4 + 1, x % 4 + 1, y / 4 + 1, y % 4 + 1));
    }
    print!("{out}");
}
