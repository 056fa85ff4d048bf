//! Checker for black-white-board (testlib protocol): `checker <input> <output> <answer>`.
//!
//! Exit 0 AC, 1 WA, 3 when the jury's own files are broken (never because of the contestant).
//! Many shortest sequences exist, so the contestant's moves are replayed instead of compared:
//! line 1 must be the jury's minimum k, then exactly k lines `abcd` (swap row a column b with
//! row c column d, 1-based, the two cells edge-adjacent, either order), and replaying them in
//! order must turn the start board into the target. Every malformed output is WA, not PE, so a
//! missing, extra or blank move line is simply a wrong answer.
//! Like the judge's `lines` checker, trailing spaces (and `\r`) on a line and empty lines at the
//! very end are ignored; nothing else is.
use std::process::exit;

const AC: i32 = 0;
const WA: i32 = 1;
const JURY_ERROR: i32 = 3;

fn finish(code: i32, message: &str) -> ! {
    eprintln!("{message}");
    exit(code)
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| finish(JURY_ERROR, &format!("cannot read {path}: {e}")))
}

/// A printable excerpt of untrusted text, so a huge or binary token cannot flood the message.
fn excerpt(bytes: &[u8]) -> String {
    let shown: String = String::from_utf8_lossy(&bytes[..bytes.len().min(20)]).escape_debug().collect();
    if bytes.len() > 20 {
        format!("`{shown}`... ({} bytes)", bytes.len())
    } else {
        format!("`{shown}`")
    }
}

/// Lines without their trailing whitespace, empty lines at the end dropped.
fn lines(text: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .map(|line| {
            let end = line.iter().rposition(|b| !b" \t\r".contains(b)).map_or(0, |i| i + 1);
            &line[..end]
        })
        .collect();
    while lines.last().is_some_and(|line| line.is_empty()) {
        lines.pop();
    }
    lines
}

/// Replays a whole output (count line + moves) from `start`. Ok(number of moves) when every line
/// is well formed and the final board is `target`; Err(reason) otherwise.
fn replay(text: &[u8], start: [u8; 16], target: [u8; 16]) -> Result<usize, String> {
    let lines = lines(text);
    let Some((first, moves)) = lines.split_first() else {
        return Err("empty output".into());
    };
    // At most 9 digits: no overflow, and no sane count is longer.
    if first.is_empty() || first.len() > 9 || !first.iter().all(u8::is_ascii_digit) {
        return Err(format!("line 1 must be the number of moves, found {}", excerpt(first)));
    }
    let count: usize = std::str::from_utf8(first).unwrap().parse().unwrap();
    if moves.len() != count {
        return Err(format!("{count} moves announced but {} move lines follow", moves.len()));
    }
    let mut board = start;
    for (i, mv) in moves.iter().enumerate() {
        let line = i + 2;
        if mv.len() != 4 || !mv.iter().all(|b| (b'1'..=b'4').contains(b)) {
            return Err(format!("line {line}: {} is not a move: four digits 1-4 expected", excerpt(mv)));
        }
        let [r1, c1, r2, c2] = [0, 1, 2, 3].map(|k| usize::from(mv[k] - b'1'));
        if r1.abs_diff(r2) + c1.abs_diff(c2) != 1 {
            return Err(format!(
                "line {line}: cells ({}, {}) and ({}, {}) are not edge-adjacent",
                r1 + 1, c1 + 1, r2 + 1, c2 + 1
            ));
        }
        board.swap(4 * r1 + c1, 4 * r2 + c2);
    }
    if board != target {
        let rows: Vec<String> = board.chunks(4).map(|r| r.iter().map(|d| d.to_string()).collect()).collect();
        return Err(format!("after the {count} moves the board is {}, not the target", rows.join("/")));
    }
    Ok(count)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        finish(JURY_ERROR, "usage: checker <input> <output> <answer>");
    }
    let (input, output, answer) = (read(&args[1]), read(&args[2]), read(&args[3]));

    let digits: Vec<u8> = input.iter().filter(|b| !b.is_ascii_whitespace()).map(|b| b.wrapping_sub(b'0')).collect();
    if digits.len() != 32 || digits.iter().any(|&d| d > 1) {
        finish(JURY_ERROR, "the input is not 32 digits 0/1");
    }
    let start: [u8; 16] = digits[..16].try_into().unwrap();
    let target: [u8; 16] = digits[16..].try_into().unwrap();

    // The jury's answer is replayed too: a broken answer file must never judge a contestant.
    let jury = replay(&answer, start, target)
        .unwrap_or_else(|why| finish(JURY_ERROR, &format!("the answer file is wrong: {why}")));
    match replay(&output, start, target) {
        Err(why) => finish(WA, &why),
        Ok(count) if count > jury => finish(WA, &format!("{count} moves, but {jury} are enough")),
        Ok(count) if count < jury => finish(
            JURY_ERROR,
            &format!("the contestant needs only {count} moves, fewer than the jury's {jury}: the answer file is wrong"),
        ),
        Ok(count) => finish(AC, &format!("{count} moves, minimal")),
    }
}
