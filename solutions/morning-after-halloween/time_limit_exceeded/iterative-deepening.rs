// TOO SLOW: iterative deepening depth-first search over joint moves with no visited set. It finds
// the true minimum, but explores up to 125^depth move sequences.
use std::io::Read;

fn search(next: &[Vec<usize>], pos: [usize; 3], goal: [usize; 3], depth: u32) -> bool {
    if pos == goal {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let [a, b, c] = pos;
    for &na in &next[a] {
        for &nb in &next[b] {
            if nb == na || (na == b && nb == a) {
                continue;
            }
            for &nc in &next[c] {
                if nc == na || nc == nb || (na == c && nc == a) || (nb == c && nc == b) {
                    continue;
                }
                if search(next, [na, nb, nc], goal, depth - 1) {
                    return true;
                }
            }
        }
    }
    false
}

fn main() {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap();
    let mut lines = input.lines();
    while let Some(header) = lines.next() {
        let v: Vec<usize> = header.split_whitespace().map(|t| t.parse().unwrap()).collect();
        let (w, h, n) = (v[0], v[1], v[2]);
        if w == 0 {
            break;
        }
        let rows: Vec<&[u8]> = (0..h).map(|_| lines.next().unwrap().as_bytes()).collect();
        let open = |p: usize| rows[p / w][p % w] != b'#';
        let mut next: Vec<Vec<usize>> = (0..w * h)
            .map(|p| {
                if !open(p) {
                    return vec![];
                }
                let mut v = vec![p];
                v.extend([p - w, p + w, p - 1, p + 1].into_iter().filter(|&q| open(q)));
                v
            })
            .collect();
        // Missing ghosts are dummies, each on an extra cell of its own.
        next.push(vec![w * h]);
        next.push(vec![w * h + 1]);
        let (mut start, mut goal) = ([w * h - 1, w * h, w * h + 1], [w * h - 1, w * h, w * h + 1]);
        for p in 0..w * h {
            let ch = rows[p / w][p % w];
            if ch.is_ascii_lowercase() && ((ch - b'a') as usize) < n {
                start[(ch - b'a') as usize] = p;
            } else if ch.is_ascii_uppercase() && ((ch - b'A') as usize) < n {
                goal[(ch - b'A') as usize] = p;
            }
        }
        let mut depth = 0;
        while !search(&next, start, goal, depth) {
            depth += 1;
        }
        println!("{depth}");
    }
}
