//! morning-after-halloween input validator: exit 0 when valid, otherwise 1 with the reason on
//! stderr. Checks the format (rows are whole lines of exactly w characters), every guarantee of the
//! statement (letters, border, 2x2 squares, connectivity of corridors and of walls) and, with a
//! breadth-first search, that every dataset has a solution.
use std::collections::VecDeque;
use std::io::Read;
use std::process::exit;

fn fail(why: String) -> ! {
    eprintln!("{why}");
    exit(1)
}

fn main() {
    let mut raw = Vec::new();
    std::io::stdin().read_to_end(&mut raw).unwrap();
    let text = String::from_utf8(raw).unwrap_or_else(|_| fail("the input is not ASCII".into()));
    if !text.ends_with('\n') {
        fail("the input must end with a newline".into());
    }
    let lines: Vec<&str> = text[..text.len() - 1].split('\n').collect();
    let mut at = 0;
    let mut datasets = 0;
    loop {
        let header = *lines.get(at).unwrap_or_else(|| fail("missing the final `0 0 0` line".into()));
        at += 1;
        let nums: Vec<usize> = header.split(' ').map(|t| t.parse().unwrap_or_else(|_| fail(format!("line {at}: `{header}` is not `w h n`")))).collect();
        if nums.len() != 3 || header != format!("{} {} {}", nums[0], nums[1], nums[2]) {
            fail(format!("line {at}: expected `w h n` separated by single spaces, found `{header}`"));
        }
        let (w, h, n) = (nums[0], nums[1], nums[2]);
        if (w, h, n) == (0, 0, 0) {
            break;
        }
        datasets += 1;
        if datasets > 10 {
            fail("more than 10 datasets".into());
        }
        if !(4..=16).contains(&w) || !(4..=16).contains(&h) || !(1..=3).contains(&n) {
            fail(format!("line {at}: w = {w}, h = {h}, n = {n}: need 4 <= w, h <= 16 and 1 <= n <= 3"));
        }
        if at + h > lines.len() {
            fail(format!("dataset {datasets}: fewer than {h} map rows"));
        }
        let rows: Vec<&[u8]> = lines[at..at + h].iter().map(|l| l.as_bytes()).collect();
        for (r, row) in rows.iter().enumerate() {
            if row.len() != w {
                fail(format!("line {}: a map row must have exactly {w} characters, found {}", at + r + 1, row.len()));
            }
        }
        check_dataset(datasets, w, h, n, &rows);
        at += h;
    }
    if at != lines.len() {
        fail(format!("line {}: text after the final `0 0 0`", at + 1));
    }
}

fn check_dataset(ds: usize, w: usize, h: usize, n: usize, rows: &[&[u8]]) {
    let err = |why: String| -> ! { fail(format!("dataset {ds}: {why}")) };
    let mut start = [usize::MAX; 3];
    let mut goal = [usize::MAX; 3];
    for r in 0..h {
        for c in 0..w {
            let ch = rows[r][c];
            let border = r == 0 || c == 0 || r == h - 1 || c == w - 1;
            match ch {
                b'#' => {}
                _ if border => err(format!("cell ({}, {}) is on the border but not a wall", r + 1, c + 1)),
                b' ' => {}
                b'a'..=b'c' | b'A'..=b'C' => {
                    let (slot, g) = if ch.is_ascii_lowercase() { (&mut start, ch - b'a') } else { (&mut goal, ch - b'A') };
                    if g as usize >= n {
                        err(format!("letter `{}` but there are only {n} ghosts", ch as char));
                    }
                    if slot[g as usize] != usize::MAX {
                        err(format!("letter `{}` appears twice", ch as char));
                    }
                    slot[g as usize] = r * w + c;
                }
                _ => err(format!("unexpected character `{}` at ({}, {})", ch.escape_ascii(), r + 1, c + 1)),
            }
        }
    }
    for g in 0..n {
        if start[g] == usize::MAX || goal[g] == usize::MAX {
            err(format!("ghost {} lacks its `{}` or `{}`", g + 1, (b'a' + g as u8) as char, (b'A' + g as u8) as char));
        }
    }
    for r in 0..h - 1 {
        for c in 0..w - 1 {
            if [rows[r][c], rows[r][c + 1], rows[r + 1][c], rows[r + 1][c + 1]].iter().all(|&x| x != b'#') {
                err(format!("the 2x2 square at ({}, {}) has no wall", r + 1, c + 1));
            }
        }
    }
    for (what, is) in [("corridor", false), ("wall", true)] {
        let cells: Vec<usize> = (0..w * h).filter(|&p| (rows[p / w][p % w] == b'#') == is).collect();
        let mut seen = vec![false; w * h];
        let mut stack = vec![cells[0]];
        seen[cells[0]] = true;
        let mut count = 1;
        while let Some(p) = stack.pop() {
            let (r, c) = (p / w, p % w);
            let mut nb = vec![];
            if r > 0 { nb.push(p - w); }
            if r + 1 < h { nb.push(p + w); }
            if c > 0 { nb.push(p - 1); }
            if c + 1 < w { nb.push(p + 1); }
            for q in nb {
                if !seen[q] && (rows[q / w][q % w] == b'#') == is {
                    seen[q] = true;
                    count += 1;
                    stack.push(q);
                }
            }
        }
        if count != cells.len() {
            err(format!("the {what} cells are not connected"));
        }
    }
    if !solvable(w, n, rows, start, goal) {
        err("the ghosts cannot reach their targets".into());
    }
}

fn solvable(w: usize, n: usize, rows: &[&[u8]], start: [usize; 3], goal: [usize; 3]) -> bool {
    let h = rows.len();
    let mut id = vec![usize::MAX; w * h];
    let mut cells = Vec::new();
    for p in 0..w * h {
        if rows[p / w][p % w] != b'#' {
            id[p] = cells.len();
            cells.push(p);
        }
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
    let pick = |a: [usize; 3], g: usize| if g < n { id[a[g]] } else { k - 3 + g };
    let (s, t) = ([pick(start, 0), pick(start, 1), pick(start, 2)], [pick(goal, 0), pick(goal, 1), pick(goal, 2)]);
    let enc = |a: usize, b: usize, c: usize| (a * k + b) * k + c;
    let mut seen = vec![false; k * k * k];
    seen[enc(s[0], s[1], s[2])] = true;
    let mut queue = VecDeque::from([(s[0], s[1], s[2])]);
    while let Some((a, b, c)) = queue.pop_front() {
        if [a, b, c] == t {
            return true;
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
                    if !seen[enc(na, nb, nc)] {
                        seen[enc(na, nb, nc)] = true;
                        queue.push_back((na, nb, nc));
                    }
                }
            }
        }
    }
    false
}
