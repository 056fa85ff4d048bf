// TOO BIG: breadth-first search over raw coordinates, the table declared like the classic
// `int dist[17][17][17][17][17][17]` (row and column of all three ghosts): 17^6 entries of 4 bytes
// = 92 MiB, far over the 64 MiB limit before the queue even starts. Numbering the corridor cells
// (at most about 150) shrinks the table to a few MiB.
use std::collections::VecDeque;
use std::io::Read;

// Cells of a 17 x 17 grid, one ghost's coordinate pair.
const SIDE: usize = 17 * 17;

fn main() {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap();
    let mut lines = input.lines();
    let mut dist = vec![u32::MAX; SIDE * SIDE * SIDE];
    while let Some(header) = lines.next() {
        let v: Vec<usize> = header.split_whitespace().map(|t| t.parse().unwrap()).collect();
        let (w, h, n) = (v[0], v[1], v[2]);
        if w == 0 {
            break;
        }
        let rows: Vec<&[u8]> = (0..h).map(|_| lines.next().unwrap().as_bytes()).collect();
        dist.fill(u32::MAX);
        // Missing ghosts sit on wall cells of their own in the top row and never move.
        let mut start = [0usize, 1, 2];
        let mut goal = [0usize, 1, 2];
        for r in 0..h {
            for c in 0..w {
                let ch = rows[r][c];
                if ch.is_ascii_lowercase() {
                    start[(ch - b'a') as usize] = r * 17 + c;
                } else if ch.is_ascii_uppercase() {
                    goal[(ch - b'A') as usize] = r * 17 + c;
                }
            }
        }
        let moves = |p: usize, real: bool| -> Vec<usize> {
            if !real {
                return vec![p];
            }
            let mut v = vec![p];
            for q in [p - 17, p + 17, p - 1, p + 1] {
                if rows[q / 17][q % 17] != b'#' {
                    v.push(q);
                }
            }
            v
        };
        let enc = |a: usize, b: usize, c: usize| (a * SIDE + b) * SIDE + c;
        dist[enc(start[0], start[1], start[2])] = 0;
        let mut queue = VecDeque::from([(start[0], start[1], start[2])]);
        let mut answer = 0;
        while let Some((a, b, c)) = queue.pop_front() {
            let d = dist[enc(a, b, c)];
            if [a, b, c] == goal {
                answer = d;
                break;
            }
            for na in moves(a, n > 0) {
                for nb in moves(b, n > 1) {
                    if nb == na || (na == b && nb == a) {
                        continue;
                    }
                    for nc in moves(c, n > 2) {
                        if nc == na || nc == nb || (na == c && nc == a) || (nb == c && nc == b) {
                            continue;
                        }
                        if dist[enc(na, nb, nc)] == u32::MAX {
                            dist[enc(na, nb, nc)] = d + 1;
                            queue.push_back((na, nb, nc));
                        }
                    }
                }
            }
        }
        println!("{answer}");
    }
}
