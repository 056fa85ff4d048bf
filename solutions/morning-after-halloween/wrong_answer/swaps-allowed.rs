// WRONG: lets two ghosts exchange their cells in one step (the rules forbid swaps).
use std::collections::VecDeque;
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
        // Rows contain spaces (corridors), so they are whole lines, never words.
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
            let ch = rows[r].get(c).copied().unwrap_or(b'#');
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
    // Missing ghosts are dummies on a cell of their own that never moves.
    for g in n..3 {
        start[g] = cells.len();
        goal[g] = cells.len();
        next.push(vec![cells.len()]);
        cells.push(usize::MAX);
    }
    let k = cells.len();
    let encode = |a: usize, b: usize, c: usize| (a * k + b) * k + c;
    let mut dist = vec![u16::MAX; k * k * k];
    let target = encode(goal[0], goal[1], goal[2]);
    let first = encode(start[0], start[1], start[2]);
    dist[first] = 0;
    let mut queue = VecDeque::from([(start[0], start[1], start[2])]);
    while let Some((a, b, c)) = queue.pop_front() {
        let d = dist[encode(a, b, c)];
        if encode(a, b, c) == target {
            return d as u32;
        }
        for &na in &next[a] {
            for &nb in &next[b] {
                if nb == na {
                    continue;
                }
                for &nc in &next[c] {
                    if nc == na || nc == nb {
                        continue;
                    }
                    let s = encode(na, nb, nc);
                    if dist[s] == u16::MAX {
                        dist[s] = d + 1;
                        queue.push_back((na, nb, nc));
                    }
                }
            }
        }
    }
    unreachable!("the statement guarantees a solution")
}
