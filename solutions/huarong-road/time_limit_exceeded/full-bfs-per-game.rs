// TOO SLOW: a plain breadth-first search over (piece cell, blank cell) for every game. Correct,
// but each game may visit (n m)^2 = 810,000 states, and there are up to 500 games.
use std::collections::VecDeque;
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let mut it = s.split_ascii_whitespace().map(|t| t.parse::<usize>().unwrap());
    let (n, m, q) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
    let open: Vec<bool> = (0..n * m).map(|_| it.next().unwrap() == 1).collect();
    let cells = n * m;
    let neighbours: Vec<Vec<usize>> = (0..cells)
        .map(|c| {
            let (r, col) = (c / m, c % m);
            let mut v = Vec::new();
            if r > 0 { v.push(c - m); }
            if r + 1 < n { v.push(c + m); }
            if col > 0 { v.push(c - 1); }
            if col + 1 < m { v.push(c + 1); }
            v.retain(|&x| open[x]);
            v
        })
        .collect();
    let mut dist = vec![u32::MAX; cells * cells];
    let mut out = String::new();
    for _ in 0..q {
        let mut g = || {
            let (r, c) = (it.next().unwrap() - 1, it.next().unwrap() - 1);
            r * m + c
        };
        let (e, s, t) = (g(), g(), g());
        dist.fill(u32::MAX);
        let mut answer: i64 = -1;
        let start = s * cells + e;
        dist[start] = 0;
        let mut queue = VecDeque::from([start]);
        while let Some(state) = queue.pop_front() {
            let (piece, blank) = (state / cells, state % cells);
            if piece == t {
                answer = dist[state] as i64;
                break;
            }
            for &next in &neighbours[blank] {
                // The blank takes the neighbour's place; if that was the piece, the piece moves.
                let new_piece = if next == piece { blank } else { piece };
                let ns = new_piece * cells + next;
                if dist[ns] == u32::MAX {
                    dist[ns] = dist[state] + 1;
                    queue.push_back(ns);
                }
            }
        }
        out.push_str(&format!("{answer}\n"));
    }
    print!("{out}");
}
