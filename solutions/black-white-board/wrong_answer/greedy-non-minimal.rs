// WRONG: greedy. Fixes the cells one by one in reading order, each time pulling the nearest
// piece of the needed colour along a shortest path. Always reaches the target, but often with
// more moves than necessary.
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let d: Vec<u8> = s.bytes().filter(u8::is_ascii_digit).map(|b| b - b'0').collect();
    let mut board = d[..16].to_vec();
    let target = d[16..32].to_vec();
    let mut moves: Vec<(usize, usize)> = Vec::new();
    for cell in 0..16 {
        if board[cell] == target[cell] {
            continue;
        }
        // The nearest later cell holding the colour this cell needs.
        let from = (cell + 1..16)
            .filter(|&c| board[c] == target[cell])
            .min_by_key(|&c| ((c / 4) as i32 - (cell / 4) as i32).abs() + ((c % 4) as i32 - (cell % 4) as i32).abs())
            .unwrap();
        let mut at = from;
        while at != cell {
            let next = if at % 4 != cell % 4 {
                if at % 4 > cell % 4 { at - 1 } else { at + 1 }
            } else {
                at - 4
            };
            board.swap(at, next);
            moves.push((next, at));
            at = next;
        }
    }
    println!("{}", moves.len());
    for (x, y) in moves {
        println!("{}{}{}{}", x / 4 + 1, x % 4 + 1, y / 4 + 1, y % 4 + 1);
    }
}
