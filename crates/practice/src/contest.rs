//! Virtual contests: ICPC scoring over the history, and the clock it reads.
//!
//! Only submissions made between the start and the end count. Per problem, in time order: a
//! compile error or a judge error counts for nothing, each other rejection before the first
//! accepted submission costs 20 minutes, and the first accepted one solves it at the minute it
//! was made (minutes since the start, rounded down); its penalty is that minute plus 20 per
//! rejection. With a freeze of F minutes, submissions of the last F minutes are shown only as
//! tries (`frozen`) until the contest is over. A submission still being judged is `pending`.

use super::db::{Attempt, Contest};
use serde_json::{json, Value};

/// Penalty minutes per rejected submission before the accepted one.
pub const PENALTY_MIN: i64 = 20;
const MINUTE_MS: i64 = 60_000;

/// Where "now" comes from: the system clock, or a file a test writes (`--clock-file`, hidden).
pub trait Clock: Send + Sync {
    /// Milliseconds since the epoch.
    fn now_ms(&self) -> i64;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0)
    }
}

/// A clock read from a file holding milliseconds since the epoch (the system clock while the
/// file is missing or unreadable), so a test can script submissions at given minutes.
pub struct FileClock(pub std::path::PathBuf);

impl Clock for FileClock {
    fn now_ms(&self) -> i64 {
        std::fs::read_to_string(&self.0)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or_else(|| SystemClock.now_ms())
    }
}

/// One problem's cell of the scoreboard.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cell {
    pub solved: bool,
    /// The minute of the accepted submission.
    pub time_min: Option<i64>,
    /// Rejections before the accepted submission (all of them when unsolved).
    pub rejected: i64,
    pub penalty: i64,
    /// Still being judged.
    pub pending: i64,
    /// Made during the freeze, shown only as tries.
    pub frozen: i64,
}

/// Where a contest stands at `now`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    NotStarted,
    Running,
    Frozen,
    Over,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::NotStarted => "not_started",
            State::Running => "running",
            State::Frozen => "frozen",
            State::Over => "over",
        }
    }
}

pub fn end_of(contest: &Contest) -> Option<i64> {
    contest
        .start_at
        .map(|s| s + contest.duration_min * MINUTE_MS)
}

pub fn state(contest: &Contest, now: i64) -> State {
    let (Some(start), Some(end)) = (contest.start_at, end_of(contest)) else {
        return State::NotStarted;
    };
    if now < start {
        State::NotStarted
    } else if now >= end {
        State::Over
    } else if contest
        .freeze_min
        .is_some_and(|f| now >= end - f * MINUTE_MS)
    {
        State::Frozen
    } else {
        State::Running
    }
}

/// The cells of every problem of the contest, in its order, from the attempts (any order).
pub fn score(contest: &Contest, attempts: &[Attempt], now: i64) -> Vec<Cell> {
    let (Some(start), Some(end)) = (contest.start_at, end_of(contest)) else {
        return vec![Cell::default(); contest.problems.len()];
    };
    let freeze_from = match contest.freeze_min {
        Some(f) if now < end => Some(end - f * MINUTE_MS),
        _ => None,
    };
    let mut sorted: Vec<&Attempt> = attempts
        .iter()
        .filter(|a| a.created_at >= start && a.created_at <= end.min(now.max(start)))
        .collect();
    sorted.sort_by_key(|a| a.created_at);
    contest
        .problems
        .iter()
        .map(|problem| {
            let mut cell = Cell::default();
            for a in sorted.iter().filter(|a| &a.problem == problem) {
                if cell.solved {
                    break;
                }
                if freeze_from.is_some_and(|f| a.created_at >= f) {
                    cell.frozen += 1;
                    continue;
                }
                match a.verdict.as_deref() {
                    None => cell.pending += 1,
                    Some("CE") | Some("JE") => {}
                    Some("AC") => {
                        let minute = (a.created_at - start) / MINUTE_MS;
                        cell.solved = true;
                        cell.time_min = Some(minute);
                        cell.penalty = minute + PENALTY_MIN * cell.rejected;
                    }
                    Some(_) => cell.rejected += 1,
                }
            }
            cell
        })
        .collect()
}

/// A, B, …, Z, AA, AB, …
pub fn label(index: usize) -> String {
    let mut n = index + 1;
    let mut out = Vec::new();
    while n > 0 {
        n -= 1;
        out.push(b'A' + (n % 26) as u8);
        n /= 26;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The contest's JSON (`GET /api/contests`).
pub fn contest_json(contest: &Contest, now: i64) -> Value {
    json!({
        "id": contest.id,
        "name": contest.name,
        "batch": contest.batch,
        "batch_size": contest.batch_size,
        "problems": contest.problems,
        "created_at": contest.created_at,
        "started_at": contest.start_at,
        "end_at": end_of(contest),
        "duration_min": contest.duration_min,
        "freeze_min": contest.freeze_min,
        "state": state(contest, now).name(),
        "now": now,
    })
}

/// The scoreboard's JSON (`GET /api/contests/{id}/scoreboard`).
pub fn scoreboard_json(contest: &Contest, attempts: &[Attempt], now: i64) -> Value {
    let cells = score(contest, attempts, now);
    let solved = cells.iter().filter(|c| c.solved).count();
    let penalty: i64 = cells.iter().map(|c| c.penalty).sum();
    let elapsed = contest
        .start_at
        .map(|s| ((now.min(end_of(contest).unwrap_or(now)) - s).max(0)) / MINUTE_MS);
    let problems: Vec<Value> = contest
        .problems
        .iter()
        .zip(&cells)
        .enumerate()
        .map(|(i, (p, c))| {
            json!({
                "problem": p,
                "label": label(i),
                "solved": c.solved,
                "attempts": c.rejected + i64::from(c.solved),
                "time_min": c.time_min,
                "rejected": c.rejected,
                "penalty": c.penalty,
                "pending": c.pending,
                "frozen": c.frozen,
            })
        })
        .collect();
    json!({
        "contest": contest_json(contest, now),
        "state": state(contest, now).name(),
        "frozen": state(contest, now) == State::Frozen,
        "elapsed_min": elapsed,
        "solved": solved,
        "penalty": penalty,
        "problems": problems,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: i64 = 1_700_000_000_000;

    fn contest(freeze: Option<i64>) -> Contest {
        Contest {
            id: 1,
            name: "Round".into(),
            batch: None,
            batch_size: None,
            created_at: START,
            start_at: Some(START),
            duration_min: 300,
            freeze_min: freeze,
            problems: vec!["a".into(), "b".into(), "c".into()],
        }
    }

    fn at(problem: &str, minute: f64, verdict: Option<&str>) -> Attempt {
        Attempt {
            problem: problem.into(),
            created_at: START + (minute * 60_000.0) as i64,
            verdict: verdict.map(str::to_string),
        }
    }

    #[test]
    fn icpc_scoring_counts_rejections_before_the_first_ac_and_ignores_compile_errors() {
        let attempts = [
            at("a", 3.5, Some("WA")),
            at("a", 10.0, Some("CE")),
            at("a", 12.9, Some("AC")),
            at("a", 20.0, Some("WA")), // after AC: ignored
            at("b", 30.0, Some("TLE")),
            at("b", 40.0, Some("RE")),
            at("b", 65.2, Some("AC")),
            at("c", 70.0, Some("WA")),
            at("c", 80.0, Some("JE")),
            at("c", 90.0, None),
            at("z", 5.0, Some("AC")), // not in the contest
        ];
        let cells = score(&contest(None), &attempts, START + 100 * 60_000);
        assert_eq!(
            cells[0],
            Cell {
                solved: true,
                time_min: Some(12),
                rejected: 1,
                penalty: 32,
                pending: 0,
                frozen: 0
            }
        );
        assert_eq!(
            cells[1],
            Cell {
                solved: true,
                time_min: Some(65),
                rejected: 2,
                penalty: 105,
                pending: 0,
                frozen: 0
            }
        );
        assert_eq!(
            cells[2],
            Cell {
                solved: false,
                time_min: None,
                rejected: 1,
                penalty: 0,
                pending: 1,
                frozen: 0
            }
        );
        let board = scoreboard_json(&contest(None), &attempts, START + 100 * 60_000);
        assert_eq!(board["solved"], 2);
        assert_eq!(board["penalty"], 137);
        assert_eq!(board["elapsed_min"], 100);
        assert_eq!(board["problems"][1]["label"], "B");
    }

    #[test]
    fn before_the_start_and_after_the_end_nothing_counts() {
        let attempts = [at("a", -1.0, Some("AC")), at("b", 300.5, Some("AC"))];
        let cells = score(&contest(None), &attempts, START + 400 * 60_000);
        assert!(cells.iter().all(|c| !c.solved));
        assert_eq!(state(&contest(None), START - 1), State::NotStarted);
        assert_eq!(state(&contest(None), START + 300 * 60_000), State::Over);
    }

    #[test]
    fn the_freeze_hides_results_of_the_last_minutes_until_the_end() {
        let c = contest(Some(60));
        let attempts = [
            at("a", 100.0, Some("AC")),
            at("b", 250.0, Some("WA")),
            at("b", 260.0, Some("AC")),
        ];
        let during = START + 270 * 60_000;
        assert_eq!(state(&c, during), State::Frozen);
        let cells = score(&c, &attempts, during);
        assert!(cells[0].solved);
        assert!(!cells[1].solved);
        assert_eq!(cells[1].frozen, 2);
        let after = START + 301 * 60_000;
        let cells = score(&c, &attempts, after);
        assert!(cells[1].solved);
        assert_eq!(cells[1].penalty, 260 + 20);
        let board = scoreboard_json(&c, &attempts, after);
        assert_eq!(board["penalty"], 100 + 280);
        assert_eq!(board["state"], "over");
    }

    #[test]
    fn labels_go_on_after_z() {
        assert_eq!(label(0), "A");
        assert_eq!(label(25), "Z");
        assert_eq!(label(26), "AA");
        assert_eq!(label(27), "AB");
    }
}
