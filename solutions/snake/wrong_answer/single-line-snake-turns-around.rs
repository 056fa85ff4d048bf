// WRONG: adds a shortcut for boards one cell wide (n = 1 or m = 1): there the snake is a straight
// line, so the solution skips the search and lets the head slide along the line to the apple unless
// a wall is in the way. It forgets that the snake cannot turn around: the neck blocks the way back,
// so an apple on the tail's side of the line is unreachable, yet the shortcut answers its distance
// (as if the head could pass through its own body). Every board at least 2 x 2 uses the correct BFS.
use std::collections::VecDeque;
use std::io::Read;

const DR: [i32; 4] = [-1, 0, 1, 0];
const DC: [i32; 4] = [0, 1, 0, -1];

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let mut it = s.split_whitespace();
    let n: usize = it.next().unwrap().parse().unwrap();
    let m: usize = it.next().unwrap().parse().unwrap();
    let grid: Vec<Vec<u8>> = (0..n).map(|_| it.next().unwrap().bytes().collect()).collect();
    let mut seg = [(0i32, 0i32); 9];
    let mut k = 0;
    let mut apple = (0i32, 0i32);
    for r in 0..n {
        for c in 0..m {
            match grid[r][c] {
                b'@' => apple = (r as i32, c as i32),
                d @ b'1'..=b'9' => {
                    let i = (d - b'1') as usize;
                    seg[i] = (r as i32, c as i32);
                    k = k.max(i + 1);
                }
                _ => {}
            }
        }
    }
    if n == 1 || m == 1 {
        // A board one cell wide: look only along the line.
        let line: Vec<u8> = (0..n * m).map(|i| if n == 1 { grid[0][i] } else { grid[i][0] }).collect();
        let (h, a) = if n == 1 { (seg[0].1, apple.1) } else { (seg[0].0, apple.0) };
        let (lo, hi) = (h.min(a), h.max(a));
        if (lo..=hi).any(|i| line[i as usize] == b'#') {
            println!("-1");
        } else {
            println!("{}", hi - lo);
        }
        return;
    }
    let links = k - 1;
    // Direction of link i: from segment i to segment i + 1.
    let dir_of = |a: (i32, i32), b: (i32, i32)| (0..4).find(|&d| a.0 + DR[d] == b.0 && a.1 + DC[d] == b.1).unwrap();
    let mut code = 0u32;
    for i in 0..links {
        code |= (dir_of(seg[i], seg[i + 1]) as u32) << (2 * i);
    }
    let mask = (1u32 << (2 * links)) - 1;
    let encode = |head: (i32, i32), code: u32| ((head.0 as u32 * m as u32 + head.1 as u32) << (2 * links)) | code;
    let total = (n * m) << (2 * links);
    let mut seen = vec![0u64; total / 64 + 1];
    let start = encode(seg[0], code);
    seen[start as usize / 64] |= 1 << (start % 64);
    let mut queue = VecDeque::from([(start, 0u32)]);
    while let Some((state, dist)) = queue.pop_front() {
        let cell = (state >> (2 * links)) as i32;
        let code = state & mask;
        let head = (cell / m as i32, cell % m as i32);
        // Rebuild the body; the last segment (the tail) leaves its cell during the move.
        let mut body = [(0i32, 0i32); 9];
        body[0] = head;
        for i in 0..links {
            let d = ((code >> (2 * i)) & 3) as usize;
            body[i + 1] = (body[i].0 + DR[d], body[i].1 + DC[d]);
        }
        for d in 0..4 {
            let next = (head.0 + DR[d], head.1 + DC[d]);
            if next.0 < 0 || next.1 < 0 || next.0 >= n as i32 || next.1 >= m as i32 {
                continue;
            }
            if grid[next.0 as usize][next.1 as usize] == b'#' {
                continue;
            }
            if body[..links].contains(&next) {
                continue;
            }
            if next == apple {
                println!("{}", dist + 1);
                return;
            }
            let new_code = ((code << 2) | ((d as u32 + 2) % 4)) & mask;
            let ns = encode(next, new_code);
            let (w, b) = (ns as usize / 64, ns % 64);
            if seen[w] >> b & 1 == 0 {
                seen[w] |= 1 << b;
                queue.push_back((ns, dist + 1));
            }
        }
    }
    println!("-1");
}
