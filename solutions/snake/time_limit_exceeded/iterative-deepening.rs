// TOO SLOW: iterative deepening depth-first search over moves, with no memory of visited states.
// It finds the true minimum, but the number of move sequences grows exponentially with the
// answer, and an unreachable apple makes it search forever.
use std::io::Read;

const DR: [i32; 4] = [-1, 0, 1, 0];
const DC: [i32; 4] = [0, 1, 0, -1];

struct Board {
    n: i32,
    m: i32,
    grid: Vec<Vec<u8>>,
    apple: (i32, i32),
}

fn search(b: &Board, body: &mut Vec<(i32, i32)>, depth: u32) -> bool {
    if depth == 0 {
        return false;
    }
    let head = body[0];
    for d in 0..4 {
        let next = (head.0 + DR[d], head.1 + DC[d]);
        if next.0 < 0 || next.1 < 0 || next.0 >= b.n || next.1 >= b.m {
            continue;
        }
        if b.grid[next.0 as usize][next.1 as usize] == b'#' || body[..body.len() - 1].contains(&next) {
            continue;
        }
        if next == b.apple {
            return true;
        }
        let tail = body.pop().unwrap();
        body.insert(0, next);
        let found = search(b, body, depth - 1);
        body.remove(0);
        body.push(tail);
        if found {
            return true;
        }
    }
    false
}

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let mut it = s.split_whitespace();
    let n: i32 = it.next().unwrap().parse().unwrap();
    let m: i32 = it.next().unwrap().parse().unwrap();
    let grid: Vec<Vec<u8>> = (0..n).map(|_| it.next().unwrap().bytes().collect()).collect();
    let mut segs = vec![];
    let mut apple = (0, 0);
    for r in 0..n {
        for c in 0..m {
            match grid[r as usize][c as usize] {
                b'@' => apple = (r, c),
                d @ b'1'..=b'9' => segs.push((d, (r, c))),
                _ => {}
            }
        }
    }
    segs.sort();
    let mut body: Vec<(i32, i32)> = segs.into_iter().map(|(_, p)| p).collect();
    let board = Board { n, m, grid, apple };
    // A board with no free cell next to the head at all can be answered at once.
    for depth in 1.. {
        if search(&board, &mut body, depth) {
            println!("{depth}");
            return;
        }
        if depth > 4 * (n * m) as u32 * 9 {
            break;
        }
    }
    println!("-1");
}
