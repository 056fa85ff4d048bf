//! morning-after-halloween: generator of the hardest datasets.
//!
//! Usage: hard SEED DATASETS W H N [PILLARS]
//! Each dataset is a perfect maze (carved on odd coordinates, so every 2x2 square keeps a wall and
//! walls and corridors are both connected) or, with PILLARS = 1, a denser pillar floor (more
//! corridor cells, more joint states), with random targets; the ghosts start in the joint
//! position that is FARTHEST from the targets (found by a breadth-first search from the targets),
//! among those whose cells differ from the target cells. So the answer is as large as the maze
//! allows and a solver must explore almost every joint state. All randomness comes from SEED.
use std::collections::VecDeque;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: deterministic on every platform.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("numeric arguments")).collect();
    let (seed, datasets, w, h, n) = (args[0], args[1], args[2], args[3], args[4]);
    // An optional sixth argument 1 asks for the densest floors (pillars) instead of perfect mazes.
    let pillars = args.get(5) == Some(&1);
    let mut rng = Rng(seed as u64 * 0x9e37_79b9_7f4a_7c15 + 1);
    let mut out = String::new();
    for _ in 0..datasets {
        let mut grid = if pillars { pillar_floor(&mut rng, w, h) } else { maze_floor(&mut rng, w, h) };
        let cells: Vec<usize> = (0..w * h).filter(|&p| grid[p / w][p % w] == b' ').collect();
        let mut id = vec![usize::MAX; w * h];
        for (i, &p) in cells.iter().enumerate() {
            id[p] = i;
        }
        // Missing ghosts are dummies, each on an extra cell of its own.
        let k = cells.len() + 2;
        let mut next: Vec<Vec<usize>> = cells
            .iter()
            .map(|&p| {
                let mut v = vec![id[p]];
                v.extend([p - w, p + w, p - 1, p + 1].into_iter().filter(|&q| id[q] != usize::MAX).map(|q| id[q]));
                v
            })
            .collect();
        next.push(vec![k - 2]);
        next.push(vec![k - 1]);
        let mut goals = [k - 3, k - 2, k - 1];
        let mut taken = Vec::new();
        for g in goals.iter_mut().take(n) {
            loop {
                let c = rng.below(cells.len());
                if !taken.contains(&c) {
                    taken.push(c);
                    *g = c;
                    break;
                }
            }
        }
        let enc = |a: usize, b: usize, c: usize| (a * k + b) * k + c;
        let mut dist = vec![u16::MAX; k * k * k];
        dist[enc(goals[0], goals[1], goals[2])] = 0;
        let mut queue = VecDeque::from([(goals[0], goals[1], goals[2])]);
        let mut best = (0u16, goals);
        while let Some((a, b, c)) = queue.pop_front() {
            let d = dist[enc(a, b, c)];
            let state = [a, b, c];
            let free = state[..n].iter().all(|s| !goals[..n].contains(s));
            if free && d >= best.0 {
                best = (d, state);
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
                        if dist[enc(na, nb, nc)] == u16::MAX {
                            dist[enc(na, nb, nc)] = d + 1;
                            queue.push_back((na, nb, nc));
                        }
                    }
                }
            }
        }
        for g in 0..n {
            let (s, t) = (cells[best.1[g]], cells[goals[g]]);
            grid[s / w][s % w] = b'a' + g as u8;
            grid[t / w][t % w] = b'A' + g as u8;
        }
        out.push_str(&format!("{w} {h} {n}\n"));
        for row in &grid {
            out.push_str(std::str::from_utf8(row).unwrap());
            out.push('\n');
        }
    }
    out.push_str("0 0 0\n");
    print!("{out}");
}

/// A perfect maze carved on odd coordinates.
fn maze_floor(rng: &mut Rng, w: usize, h: usize) -> Vec<Vec<u8>> {
    let mut grid = vec![vec![b'#'; w]; h];
    let rooms: Vec<(usize, usize)> = (1..h - 1).step_by(2).flat_map(|r| (1..w - 1).step_by(2).map(move |c| (r, c))).collect();
    let first = rooms[rng.below(rooms.len())];
    grid[first.0][first.1] = b' ';
    let mut stack = vec![first];
    while let Some(&(r, c)) = stack.last() {
        let mut options = Vec::new();
        for (dr, dc) in [(-2i64, 0i64), (2, 0), (0, -2), (0, 2)] {
            let (nr, nc) = (r as i64 + dr, c as i64 + dc);
            if nr >= 1 && nc >= 1 && nr < h as i64 - 1 && nc < w as i64 - 1 && grid[nr as usize][nc as usize] == b'#' {
                options.push((nr as usize, nc as usize));
            }
        }
        if options.is_empty() {
            stack.pop();
            continue;
        }
        let (nr, nc) = options[rng.below(options.len())];
        grid[(r + nr) / 2][(c + nc) / 2] = b' ';
        grid[nr][nc] = b' ';
        stack.push((nr, nc));
    }
    grid
}

/// A floor much denser than a maze: a wall pillar on every (even, even) cell, and the pillars
/// joined to the border by a random spanning tree of one-cell links. Every 2x2 square holds a
/// pillar, the walls form one tree hanging off the border (so the corridors stay connected), and
/// a 16 x 16 floor gets 111 corridor cells instead of a perfect maze's 97.
fn pillar_floor(rng: &mut Rng, w: usize, h: usize) -> Vec<Vec<u8>> {
    let mut grid = vec![vec![b' '; w]; h];
    for r in 0..h {
        for c in 0..w {
            if r == 0 || c == 0 || r == h - 1 || c == w - 1 || (r % 2 == 0 && c % 2 == 0) {
                grid[r][c] = b'#';
            }
        }
    }
    let pillars: Vec<(usize, usize)> = (2..h - 1).step_by(2).flat_map(|r| (2..w - 1).step_by(2).map(move |c| (r, c))).collect();
    let border = |r: usize, c: usize| r == 0 || c == 0 || r == h - 1 || c == w - 1;
    let touches_border = |&(r, c): &(usize, usize)| border(r + 1, c) || border(r, c + 1);
    let mut joined: Vec<bool> = pillars.iter().map(touches_border).collect();
    // Random Prim: link a random unjoined pillar to a joined neighbour (or to the border) two cells
    // away, until every pillar hangs off the border.
    while joined.iter().any(|j| !j) {
        let mut links = Vec::new();
        for (i, &(r, c)) in pillars.iter().enumerate() {
            if joined[i] {
                continue;
            }
            for (dr, dc) in [(-2i64, 0i64), (2, 0), (0, -2), (0, 2)] {
                let (nr, nc) = (r as i64 + dr, c as i64 + dc);
                if nr < 0 || nc < 0 || nr >= h as i64 || nc >= w as i64 {
                    continue;
                }
                let (nr, nc) = (nr as usize, nc as usize);
                let ok = border(nr, nc) || pillars.iter().position(|&p| p == (nr, nc)).is_some_and(|j| joined[j]);
                if ok {
                    links.push((i, (r + nr) / 2, (c + nc) / 2));
                }
            }
        }
        let (i, lr, lc) = links[rng.below(links.len())];
        grid[lr][lc] = b'#';
        joined[i] = true;
    }
    grid
}
