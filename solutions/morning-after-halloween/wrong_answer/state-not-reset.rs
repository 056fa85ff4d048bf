// WRONG: the visited table is allocated once, sized for the largest floor, and never cleared
// between datasets. States the previous dataset reached look visited already, so later datasets
// get a longer answer, or none at all (then it prints -1).
use std::collections::VecDeque;
use std::io::Read;

// Room for every corridor cell of a 16 x 16 floor plus the two dummy cells.
const K: usize = 16 * 16 + 2;

fn main() {
    let mut input = String::new();
    std::io::stdin().lock().read_to_string(&mut input).unwrap();
    let mut lines = input.lines();
    let mut visited = vec![false; K * K * K];
    let mut out = String::new();
    while let Some(header) = lines.next() {
        let v: Vec<usize> = header.split_whitespace().map(|t| t.parse().unwrap()).collect();
        let (w, h, n) = (v[0], v[1], v[2]);
        if w == 0 {
            break;
        }
        let rows: Vec<&[u8]> = (0..h).map(|_| lines.next().unwrap().as_bytes()).collect();
        out.push_str(&format!("{}\n", solve(w, h, n, &rows, &mut visited)));
    }
    print!("{out}");
}

fn solve(w: usize, h: usize, n: usize, rows: &[&[u8]], visited: &mut [bool]) -> i64 {
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
    let encode = |a: usize, b: usize, c: usize| (a * K + b) * K + c;
    visited[encode(start[0], start[1], start[2])] = true;
    let mut queue = VecDeque::from([(start, 0)]);
    while let Some(([a, b, c], d)) = queue.pop_front() {
        if [a, b, c] == goal {
            return d;
        }
        for &na in &next[a] {
            for &nb in &next[b] {
                if nb == na || (na == b && nb == a) {
                    continue;
                }
                for &nc in &next[c] {
                    if nc == na || nc == nb || (na == c && nc == a) || (nb == c && nc == b) {
                        continue;
                    }
                    if !visited[encode(na, nb, nc)] {
                        visited[encode(na, nb, nc)] = true;
                        queue.push_back(([na, nb, nc], d + 1));
                    }
                }
            }
        }
    }
    -1
}
