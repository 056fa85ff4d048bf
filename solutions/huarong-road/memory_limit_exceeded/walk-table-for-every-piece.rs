// MEMORY LIMIT: precomputes, for every cell the piece may stand on, the blank's distance between
// every pair of cells: (n m)^3 entries, about 1.5 GB of u16 on a 30 x 30 board against 128 MiB. Each
// game is then a Dijkstra over (piece cell, side of the blank) reading from that table.
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io::Read;

const FAR: u16 = u16::MAX;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let mut it = s.split_ascii_whitespace().map(|t| t.parse::<usize>().unwrap());
    let (n, m, q) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
    let open: Vec<bool> = (0..n * m).map(|_| it.next().unwrap() == 1).collect();
    let cells = n * m;
    let side = |cell: usize, d: usize| -> Option<usize> {
        let (r, c) = (cell / m, cell % m);
        let next = match d {
            0 if r > 0 => cell - m,
            1 if c + 1 < m => cell + 1,
            2 if r + 1 < n => cell + m,
            3 if c > 0 => cell - 1,
            _ => return None,
        };
        open[next].then_some(next)
    };
    // walk[(piece * cells + from) * cells + to]: the blank's shortest walk with the piece as a wall.
    let mut walk = vec![FAR; cells * cells * cells];
    let mut queue = VecDeque::new();
    for piece in 0..cells {
        for from in 0..cells {
            if !open[from] || from == piece {
                continue;
            }
            let row = &mut walk[(piece * cells + from) * cells..][..cells];
            row[from] = 0;
            queue.push_back(from);
            while let Some(cell) = queue.pop_front() {
                for d in 0..4 {
                    if let Some(next) = side(cell, d) {
                        if next != piece && row[next] == FAR {
                            row[next] = row[cell] + 1;
                            queue.push_back(next);
                        }
                    }
                }
            }
        }
    }
    let mut out = String::new();
    let mut best = vec![u32::MAX; cells * 4];
    for _ in 0..q {
        let mut g = || (it.next().unwrap() - 1) * m + it.next().unwrap() - 1;
        let (e, s, t) = (g(), g(), g());
        if s == t {
            out.push_str("0\n");
            continue;
        }
        best.fill(u32::MAX);
        let mut heap = BinaryHeap::new();
        for d in 0..4 {
            if let Some(x) = side(s, d) {
                let w = walk[(s * cells + e) * cells + x];
                if w != FAR {
                    best[s * 4 + d] = w as u32;
                    heap.push(Reverse((w as u32, s * 4 + d)));
                }
            }
        }
        let mut answer = None;
        while let Some(Reverse((cost, state))) = heap.pop() {
            if cost > best[state] {
                continue;
            }
            let (cell, d) = (state / 4, state % 4);
            if cell == t {
                answer = Some(cost);
                break;
            }
            let blank = side(cell, d).unwrap();
            let mut moves = vec![(blank * 4 + (d + 2) % 4, cost + 1)];
            for d2 in 0..4 {
                if let Some(x) = side(cell, d2) {
                    let w = walk[(cell * cells + blank) * cells + x];
                    if d2 != d && w != FAR {
                        moves.push((cell * 4 + d2, cost + w as u32));
                    }
                }
            }
            for (next, c) in moves {
                if c < best[next] {
                    best[next] = c;
                    heap.push(Reverse((c, next)));
                }
            }
        }
        match answer {
            Some(a) => out.push_str(&format!("{a}\n")),
            None => out.push_str("-1\n"),
        }
    }
    print!("{out}");
}
