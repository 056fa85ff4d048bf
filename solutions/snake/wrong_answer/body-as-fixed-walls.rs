// WRONG: treats the snake's body as fixed walls and searches for the head alone, as if the body
// never moved out of the way.
use std::collections::VecDeque;
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let mut it = s.split_whitespace();
    let n: usize = it.next().unwrap().parse().unwrap();
    let m: usize = it.next().unwrap().parse().unwrap();
    let grid: Vec<Vec<u8>> = (0..n).map(|_| it.next().unwrap().bytes().collect()).collect();
    let mut head = (0, 0);
    for r in 0..n {
        for c in 0..m {
            if grid[r][c] == b'1' {
                head = (r, c);
            }
        }
    }
    let mut dist = vec![vec![-1i32; m]; n];
    dist[head.0][head.1] = 0;
    let mut queue = VecDeque::from([head]);
    while let Some((r, c)) = queue.pop_front() {
        let steps = [(r.wrapping_sub(1), c), (r + 1, c), (r, c.wrapping_sub(1)), (r, c + 1)];
        for (nr, nc) in steps {
            if nr >= n || nc >= m || dist[nr][nc] >= 0 {
                continue;
            }
            match grid[nr][nc] {
                b'@' => {
                    println!("{}", dist[r][c] + 1);
                    return;
                }
                b'.' => {
                    dist[nr][nc] = dist[r][c] + 1;
                    queue.push_back((nr, nc));
                }
                _ => {}
            }
        }
    }
    println!("-1");
}
