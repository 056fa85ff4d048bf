//! Each shipped problem's reference solution agrees with an independent brute force on many small
//! random inputs (through `judge stress`, so validator, checker and sandbox are all in the loop).

use crate::harness::judge;

fn crosscheck(problem: &str, brute: &str, reference: &str, gen: &str) {
    let f = judge()
        .args([
            "stress",
            problem,
            brute,
            "--against",
            reference,
            "--gen",
            gen,
            "--seconds",
            "20",
        ])
        .output();
    f.expect_code(0)
        .expect_stdout_contains("no failing input found");
    let tried: u32 = f
        .stderr()
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Stress no failure in ")?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or(0);
    // About 100-200 inputs fit in 20 s on an idle machine; the floor leaves room for a loaded one.
    assert!(
        tried >= 25,
        "only {tried} inputs were cross-checked: {}",
        f.describe()
    );
}

#[test]
#[ignore = "slow system test, run by .ci/run: cargo test --test judge -- --ignored"]
fn snake_reference_agrees_with_brute_force() {
    crosscheck(
        "snake",
        "problems/snake/brute.py",
        "solutions/snake/accepted/bfs-bitset.rs",
        "gen/random.py {seed} 7 7 9 30 tiny",
    );
}

#[test]
#[ignore = "slow system test, run by .ci/run: cargo test --test judge -- --ignored"]
fn black_white_board_reference_agrees_with_brute_force() {
    crosscheck(
        "black-white-board",
        "problems/black-white-board/brute.py",
        "solutions/black-white-board/accepted/bfs-parents.rs",
        "gen/boards.py {seed} dist:6",
    );
}

#[test]
#[ignore = "slow system test, run by .ci/run: cargo test --test judge -- --ignored"]
fn huarong_road_reference_agrees_with_brute_force() {
    crosscheck(
        "huarong-road",
        "solutions/huarong-road/time_limit_exceeded/full-bfs-per-game.rs",
        "solutions/huarong-road/accepted/state-graph-dijkstra.rs",
        "gen/board.py {seed} 5 6 25 20 mixed",
    );
}

#[test]
#[ignore = "slow system test, run by .ci/run: cargo test --test judge -- --ignored"]
fn morning_after_halloween_reference_agrees_with_brute_force() {
    crosscheck(
        "morning-after-halloween",
        "solutions/morning-after-halloween/time_limit_exceeded/iterative-deepening.rs",
        "solutions/morning-after-halloween/accepted/bfs-numbered-cells.rs",
        "gen/maze.py {seed} 2 4 8 4 8 0 30 4",
    );
}
