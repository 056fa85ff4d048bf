// RUNTIME ERROR: computes a neighbour's index without checking that it lies on the board. For a
// piece on the first row the cell above wraps around to a huge index, and indexing the board with
// it panics (index out of bounds).
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io::Read;

const DR: [i64; 4] = [-1, 0, 1, 0];
const DC: [i64; 4] = [0, 1, 0, -1];
const INF: u32 = u32::MAX;

struct Board {
    m: usize,
    open: Vec<bool>,
}

impl Board {
    fn step(&self, cell: usize, d: usize) -> Option<usize> {
        // Off-board neighbours are assumed to be fixed, but never tested for: r = -1 wraps around.
        let (r, c) = ((cell / self.m) as i64 + DR[d], (cell % self.m) as i64 + DC[d]);
        let next = (r * self.m as i64 + c) as usize;
        self.open[next].then_some(next)
    }

    /// Distances of the blank from `from` to every cell, never entering `wall`.
    fn bfs(&self, from: usize, wall: usize, dist: &mut [u32]) {
        dist.fill(INF);
        if from == wall || !self.open[from] {
            return;
        }
        dist[from] = 0;
        let mut queue = VecDeque::from([from]);
        while let Some(cell) = queue.pop_front() {
            for d in 0..4 {
                if let Some(next) = self.step(cell, d) {
                    if next != wall && dist[next] == INF {
                        dist[next] = dist[cell] + 1;
                        queue.push_back(next);
                    }
                }
            }
        }
    }
}

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let mut it = s.split_ascii_whitespace().map(|t| t.parse::<usize>().unwrap());
    let (n, m, q) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
    let open: Vec<bool> = (0..n * m).map(|_| it.next().unwrap() == 1).collect();
    let board = Board { m, open };
    let cells = n * m;
    // walk[(cell * 4 + d1) * 4 + d2]: blank from side d1 to side d2 of a piece on `cell`.
    let mut walk = vec![INF; cells * 16];
    let mut dist = vec![INF; cells];
    for cell in 0..cells {
        if !board.open[cell] {
            continue;
        }
        for d1 in 0..4 {
            let Some(side) = board.step(cell, d1) else { continue };
            board.bfs(side, cell, &mut dist);
            for d2 in 0..4 {
                if let Some(other) = board.step(cell, d2) {
                    walk[(cell * 4 + d1) * 4 + d2] = dist[other];
                }
            }
        }
    }
    let mut out = String::new();
    let mut best = vec![INF; cells * 4];
    for _ in 0..q {
        let mut g = || {
            let (r, c) = (it.next().unwrap() - 1, it.next().unwrap() - 1);
            r * m + c
        };
        let (e, s, t) = (g(), g(), g());
        if s == t {
            out.push_str("0\n");
            continue;
        }
        board.bfs(e, s, &mut dist);
        best.fill(INF);
        let mut heap = BinaryHeap::new();
        for d in 0..4 {
            if let Some(side) = board.step(s, d) {
                if dist[side] != INF {
                    best[s * 4 + d] = dist[side];
                    heap.push(Reverse((dist[side], s * 4 + d)));
                }
            }
        }
        let mut answer = INF;
        while let Some(Reverse((cost, state))) = heap.pop() {
            if cost > best[state] {
                continue;
            }
            let (cell, d) = (state / 4, state % 4);
            if cell == t {
                answer = cost;
                break;
            }
            let mut relax = |next: usize, c: u32| {
                if c < best[next] {
                    best[next] = c;
                    heap.push(Reverse((c, next)));
                }
            };
            for d2 in 0..4 {
                let w = walk[(cell * 4 + d) * 4 + d2];
                if w != INF {
                    relax(cell * 4 + d2, cost + w);
                }
            }
            // Swap the piece with the blank: the piece moves to side d, the blank to its old cell.
            let side = board.step(cell, d).expect("the blank is on an open cell");
            relax(side * 4 + (d + 2) % 4, cost + 1);
        }
        if answer == INF {
            out.push_str("-1\n");
        } else {
            out.push_str(&format!("{answer}\n"));
        }
    }
    print!("{out}");
}
