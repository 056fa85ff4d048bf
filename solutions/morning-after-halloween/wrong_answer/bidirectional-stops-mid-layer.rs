// WRONG: bidirectional breadth-first search that expands one state from each side in turn and
// stops at the FIRST state seen by both sides. At that moment the other side's queue holds two
// layers, so a shorter meeting through the older layer may still be waiting; a correct version
// finishes the whole layer before answering.
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
    let encode = |[a, b, c]: [usize; 3]| (a * k + b) * k + c;
    if start == goal {
        return 0;
    }
    // Side 0 searches from the start, side 1 from the goal (steps can be undone, so the moves are
    // the same both ways).
    let mut dist = [vec![u16::MAX; k * k * k], vec![u16::MAX; k * k * k]];
    let mut queue = [vec![start], vec![goal]];
    let mut head = [0, 0];
    dist[0][encode(start)] = 0;
    dist[1][encode(goal)] = 0;
    loop {
        for side in 0..2 {
            let [a, b, c] = queue[side][head[side]];
            head[side] += 1;
            let d = dist[side][encode([a, b, c])];
            for &na in &next[a] {
                for &nb in &next[b] {
                    if nb == na || (na == b && nb == a) {
                        continue;
                    }
                    for &nc in &next[c] {
                        if nc == na || nc == nb || (na == c && nc == a) || (nb == c && nc == b) {
                            continue;
                        }
                        let s = encode([na, nb, nc]);
                        if dist[side][s] != u16::MAX {
                            continue;
                        }
                        dist[side][s] = d + 1;
                        if dist[1 - side][s] != u16::MAX {
                            return (d + 1 + dist[1 - side][s]) as u32;
                        }
                        queue[side].push([na, nb, nc]);
                    }
                }
            }
        }
    }
}
