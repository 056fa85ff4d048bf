// WRONG: depth-first search with a visited set prints the first path that reaches the target.
// Every printed move is legal and the final board is right, but DFS finds some path, not a
// shortest one, so the count is far above the minimum.
use std::io::Read;

fn dfs(board: u32, target: u32, seen: &mut [bool], path: &mut Vec<(u32, u32)>) -> bool {
    if board == target {
        return true;
    }
    seen[board as usize] = true;
    for cell in 0..16 {
        let mut next_cells = Vec::new();
        if cell % 4 < 3 {
            next_cells.push(cell + 1);
        }
        if cell < 12 {
            next_cells.push(cell + 4);
        }
        for other in next_cells {
            if (board >> cell & 1) == (board >> other & 1) {
                continue;
            }
            let next = board ^ (1 << cell) ^ (1 << other);
            if !seen[next as usize] {
                path.push((cell, other));
                if dfs(next, target, seen, path) {
                    return true;
                }
                path.pop();
            }
        }
    }
    false
}

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let digits: Vec<u32> = s.bytes().filter(u8::is_ascii_digit).map(|b| (b - b'0') as u32).collect();
    let board = |part: &[u32]| part.iter().enumerate().fold(0u32, |acc, (i, &d)| acc | d << i);
    let (start, target) = (board(&digits[..16]), board(&digits[16..32]));
    let mut seen = vec![false; 1 << 16];
    let mut path = Vec::new();
    dfs(start, target, &mut seen, &mut path);
    let mut out = format!("{}\n", path.len());
    for (x, y) in path {
        out.push_str(&format!("{}{}{}{}\n", x / 4 + 1, x % 4 + 1, y / 4 + 1, y % 4 + 1));
    }
    print!("{out}");
}
