// Checker for black-white-board (testlib protocol): checker <input> <output> <answer>.
// Exit 0 AC, 1 WA, 2 PE, 3 when the jury's files are broken. Any optimal sequence is accepted:
// the count must equal the jury's minimum, every move must swap two edge-adjacent cells on the
// board, and the moves applied in order must turn the start board into the target.
use std::process::exit;

fn verdict(code: i32, message: String) -> ! {
    eprintln!("{message}");
    exit(code)
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| verdict(3, format!("cannot read {path}: {e}")))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        verdict(3, "usage: checker <input> <output> <answer>".into());
    }
    let input = read(&args[1]);
    let output = read(&args[2]);
    let answer = read(&args[3]);

    let digits: Vec<u8> = input.iter().copied().filter(u8::is_ascii_digit).map(|b| b - b'0').collect();
    if digits.len() != 32 {
        verdict(3, format!("the input has {} digits, not 32", digits.len()));
    }
    let mut board: Vec<u8> = digits[..16].to_vec();
    let target: Vec<u8> = digits[16..].to_vec();
    let jury: usize = String::from_utf8_lossy(&answer)
        .split_whitespace()
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| verdict(3, "the answer file does not start with a move count".into()));

    let text = String::from_utf8_lossy(&output);
    let mut tokens = text.split_whitespace();
    let count_token = tokens.next().unwrap_or_else(|| verdict(1, "empty output".into()));
    let count: usize = match count_token.parse() {
        Ok(c) if count_token.bytes().all(|b| b.is_ascii_digit()) => c,
        _ => verdict(1, format!("the first line must be the number of moves, found `{}`", short(count_token))),
    };
    let moves: Vec<&str> = tokens.collect();
    if moves.len() != count {
        verdict(1, format!("{count} moves announced but {} move lines follow", moves.len()));
    }
    for (i, m) in moves.iter().enumerate() {
        let b = m.as_bytes();
        if b.len() != 4 || !b.iter().all(|c| (b'1'..=b'4').contains(c)) {
            verdict(1, format!("move {}: `{}` is not four digits 1-4 (row, column, row, column)", i + 1, short(m)));
        }
        let (r1, c1, r2, c2) = ((b[0] - b'1') as i32, (b[1] - b'1') as i32, (b[2] - b'1') as i32, (b[3] - b'1') as i32);
        if (r1 - r2).abs() + (c1 - c2).abs() != 1 {
            verdict(1, format!("move {}: cells ({}, {}) and ({}, {}) are not edge-adjacent", i + 1, r1 + 1, c1 + 1, r2 + 1, c2 + 1));
        }
        board.swap((r1 * 4 + c1) as usize, (r2 * 4 + c2) as usize);
    }
    if board != target {
        let shown: Vec<String> = board.chunks(4).map(|r| r.iter().map(|d| d.to_string()).collect()).collect();
        verdict(1, format!("after the moves the board is {}, not the target", shown.join("/")));
    }
    if count > jury {
        verdict(1, format!("{count} moves is not the minimum ({jury})"));
    }
    if count < jury {
        verdict(3, format!("the contestant found {count} moves, fewer than the jury's {jury}: the answer file is wrong"));
    }
    verdict(0, format!("{count} moves"))
}

fn short(t: &str) -> String {
    if t.chars().count() > 20 {
        format!("{}…", t.chars().take(20).collect::<String>())
    } else {
        t.to_string()
    }
}
