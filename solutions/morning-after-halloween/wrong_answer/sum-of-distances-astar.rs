// WRONG: A* search whose heuristic is the SUM of every ghost's own distance to its target. Ghosts
// move at the same time, so the sum overestimates the remaining steps (the maximum would be
// admissible); A* then settles the target through a longer plan and prints too large an answer.
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io::Read;

fn main() {
    let mut input = String::new();
    std::io::stdin().lock().read_to_string(&mut input).unwrap();
    let mut lines = input.lines();
    let mut out = String::new();
    while let Some(header) = lines.next() {
        let v: Vec<usize> = header.split_whitespace().map(|t| t.parse().unwrap()).collect();
        let (w, h, n) = (v[0], v[1], v[2]);
        if w == 0 {
            break;
        }
        let rows: Vec<&[u8]> = (0..h).map(|_| lines.next().unwrap().as_bytes()).collect();
        out.push_str(&format!("{}\n", solve(w, h, n, &rows)));
    }
    print!("{out}");
}

fn solve(w: usize, h: usize, n: usize, rows: &[&[u8]]) -> u32 {
    let mut id = vec![usize::MAX; w * h];
    let mut cells = Vec::new();
    let (mut start, mut goal) = ([0usize; 3], [0usize; 3]);
    for r in 0..h {
        for c in 0..w {
            let ch = rows[r][c];
            if ch == b'#' {
                continue;
            }
            id[r * w + c] = cells.len();
            if ch.is_ascii_lowercase() {
                start[(ch - b'a') as usize] = cells.len();
            } else if ch.is_ascii_uppercase() {
                goal[(ch - b'A') as usize] = cells.len();
            }
            cells.push(r * w + c);
        }
    }
    let mut next: Vec<Vec<usize>> = cells
        .iter()
        .map(|&p| {
            let mut v = vec![id[p]];
            for q in [p - w, p + w, p - 1, p + 1] {
                if id[q] != usize::MAX {
                    v.push(id[q]);
                }
            }
            v
        })
        .collect();
    for g in n..3 {
        start[g] = cells.len();
        goal[g] = cells.len();
        next.push(vec![cells.len()]);
        cells.push(usize::MAX);
    }
    let k = cells.len();
    // Each ghost's distance to its own target, ignoring the others.
    let single: Vec<Vec<u32>> = (0..3)
        .map(|g| {
            let mut d = vec![u32::MAX; k];
            d[goal[g]] = 0;
            let mut q = VecDeque::from([goal[g]]);
            while let Some(p) = q.pop_front() {
                for &x in &next[p] {
                    if d[x] == u32::MAX {
                        d[x] = d[p] + 1;
                        q.push_back(x);
                    }
                }
            }
            d
        })
        .collect();
    let heuristic = |s: [usize; 3]| (0..3).map(|g| single[g][s[g]]).sum::<u32>();
    let encode = |[a, b, c]: [usize; 3]| (a * k + b) * k + c;
    let mut dist = vec![u32::MAX; k * k * k];
    let mut closed = vec![false; k * k * k];
    dist[encode(start)] = 0;
    let mut heap = BinaryHeap::from([Reverse((heuristic(start), 0u32, start))]);
    while let Some(Reverse((_, d, s))) = heap.pop() {
        if s == goal {
            return d;
        }
        if closed[encode(s)] {
            continue;
        }
        closed[encode(s)] = true;
        let [a, b, c] = s;
        for &na in &next[a] {
            for &nb in &next[b] {
                if nb == na || (na == b && nb == a) {
                    continue;
                }
                for &nc in &next[c] {
                    if nc == na || nc == nb || (na == c && nc == a) || (nb == c && nc == b) {
                        continue;
                    }
                    let t = [na, nb, nc];
                    if d + 1 < dist[encode(t)] {
                        dist[encode(t)] = d + 1;
                        heap.push(Reverse((d + 1 + heuristic(t), d + 1, t)));
                    }
                }
            }
        }
    }
    unreachable!("the statement guarantees a solution")
}
