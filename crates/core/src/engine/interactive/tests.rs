//! The precedence and the transcript's lines, without running anything.

use super::*;

fn run(termination: Termination) -> RunOutcome {
    RunOutcome::ended(termination)
}

fn says(j: Judgement) -> Result<checker::Outcome, String> {
    Ok(checker::Outcome {
        judgement: j,
        message: "m".into(),
        mismatch: None,
        score: None,
    })
}

fn verdict(d: Decision) -> Verdict {
    match d {
        Decision::Verdict(v, _) => v,
        Decision::Check => panic!("no verdict"),
    }
}

const K: Protocol = Protocol::Kattis;

#[test]
fn an_interactor_rejecting_first_beats_the_solutions_tle_and_re() {
    let mut tle = run(Termination::Signaled(9));
    tle.wall_limit_exceeded = true;
    assert_eq!(
        verdict(decide(&tle, says(Judgement::WrongAnswer), true, 1, K)),
        Verdict::WA
    );
    let re = run(Termination::Signaled(11));
    assert_eq!(
        verdict(decide(&re, says(Judgement::WrongAnswer), true, 1, K)),
        Verdict::WA
    );
    // Ended after the solution: the solution's own failure counts.
    assert_eq!(
        verdict(decide(&tle, says(Judgement::WrongAnswer), false, 1, K)),
        Verdict::TLE
    );
    assert_eq!(
        verdict(decide(&re, says(Judgement::WrongAnswer), false, 1, K)),
        Verdict::RE
    );
}

#[test]
fn then_tle_re_ole_and_the_interactors_verdict() {
    let mut r = run(Termination::Exited(0));
    assert_eq!(
        verdict(decide(&r, says(Judgement::Accepted), false, 1, K)),
        Verdict::AC
    );
    assert_eq!(
        verdict(decide(&r, says(Judgement::Accepted), true, 1, K)),
        Verdict::AC
    );
    assert_eq!(
        verdict(decide(&r, says(Judgement::WrongAnswer), false, 1, K)),
        Verdict::WA
    );
    r.output_limit_exceeded = true;
    assert_eq!(
        verdict(decide(&r, says(Judgement::Accepted), true, 1, K)),
        Verdict::OLE
    );
    r.termination = Termination::Exited(1);
    r.output_limit_exceeded = false;
    assert_eq!(
        verdict(decide(&r, says(Judgement::Accepted), true, 1, K)),
        Verdict::RE
    );
    r.cpu_limit_exceeded = true;
    assert_eq!(
        verdict(decide(&r, says(Judgement::Accepted), true, 1, K)),
        Verdict::TLE
    );
}

#[test]
fn an_interactor_failure_is_never_accepted() {
    let ok = run(Termination::Exited(0));
    for first in [true, false] {
        let d = decide(&ok, Err("crashed".into()), first, 1, K);
        assert_eq!(d, Decision::Verdict(Verdict::JE, "crashed".into()));
    }
    let mut hung = run(Termination::Signaled(9));
    hung.wall_limit_exceeded = true;
    let why = interactor_says(&hung, K, "", Duration::from_secs(3)).unwrap_err();
    assert!(why.contains("wall-clock cap of 3.0 s"), "{why}");
    for (code, protocol) in [
        (0, K),
        (1, K),
        (4, Protocol::Testlib),
        (3, Protocol::Testlib),
    ] {
        assert!(interactor_says(
            &run(Termination::Exited(code)),
            protocol,
            "",
            Duration::ZERO
        )
        .is_err());
    }
    let segv = run(Termination::Signaled(11));
    assert!(interactor_says(&segv, Protocol::Testlib, "", Duration::ZERO).is_err());
}

#[test]
fn a_testlib_interactor_saying_ok_leaves_the_verdict_to_the_checker() {
    let ok = run(Termination::Exited(0));
    let says_ok = interactor_says(&ok, Protocol::Testlib, "", Duration::ZERO);
    assert_eq!(
        decide(&ok, says_ok, true, 1, Protocol::Testlib),
        Decision::Check
    );
    let wa = interactor_says(
        &run(Termination::Exited(1)),
        Protocol::Testlib,
        "no",
        Duration::ZERO,
    );
    assert_eq!(
        verdict(decide(&ok, wa, false, 1, Protocol::Testlib)),
        Verdict::WA
    );
}

#[test]
fn a_transcript_reads_as_interaction_lines_capped() {
    let t = Transcript {
        parts: vec![
            (From::Judge, "10\n".into()),
            (From::Solution, "5".into()),
            (From::Solution, "\n".into()),
            (From::Judge, "higher\n".into()),
        ],
        ..Transcript::default()
    };
    assert_eq!(t.lines(10), ["<10", ">5", "<higher"]);
    assert_eq!(t.lines(2), ["<10", ">5", "… 1 more lines"]);
}

#[test]
fn who_ended_first_is_who_closed_first_unless_the_judge_killed_it() {
    let t0 = Instant::now();
    let t1 = t0 + Duration::from_millis(1);
    let ended = run(Termination::Exited(1));
    let rejected = run(Termination::Exited(43));
    // Exact from the relay: the interactor closed first, then the solution failed to read.
    assert!(partner_ended_first(
        &ended,
        &rejected,
        [Some(t0), Some(t1)],
        &[0, 1]
    ));
    // The solution crashed first, then the interactor failed to read.
    assert!(!partner_ended_first(
        &ended,
        &rejected,
        [Some(t1), Some(t0)],
        &[1, 0]
    ));
    // Killed for its partner: it was still running, whatever the relay saw last.
    let killed = run(Termination::Signaled(libc::SIGKILL));
    assert!(partner_ended_first(
        &killed,
        &rejected,
        [Some(t1), Some(t0)],
        &[1, 0]
    ));
    assert!(!partner_ended_first(
        &ended,
        &killed,
        [Some(t0), Some(t1)],
        &[0, 1]
    ));
    // Killed at a limit is no partner's doing.
    let mut tle = run(Termination::Signaled(libc::SIGKILL));
    tle.wall_limit_exceeded = true;
    assert!(!partner_ended_first(
        &tle,
        &rejected,
        [Some(t1), Some(t0)],
        &[0, 1]
    ));
    // Nothing from the relay: the sandbox's order.
    assert!(partner_ended_first(
        &ended,
        &rejected,
        [None, None],
        &[1, 0]
    ));
    // One side's relay ended on a broken pipe: the other closed.
    assert!(partner_ended_first(
        &ended,
        &rejected,
        [Some(t1), None],
        &[0, 1]
    ));
}

/// The solution's wall limit is doubled where the judge chose it (Kattis, Polygon), and a
/// native package's own holds; the interactor outlives the solution either way.
#[test]
fn an_interactive_solutions_wall_limit_is_doubled_where_the_judge_chose_it() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    for (dir, doubled) in [
        ("tests/fixtures/packages/kattis-guess", true),
        ("tests/fixtures/packages/polygon-guess", true),
        ("problems/snake", false),
    ] {
        let problem = Problem::load(&root.join(dir)).unwrap();
        let usual = solution_limits(&problem);
        let limits = interactive_solution_limits(&problem);
        let want = if doubled { usual.wall * 2 } else { usual.wall };
        assert_eq!(limits.wall, want, "{dir}");
        assert_eq!(limits.cpu, usual.cpu, "{dir}");
        assert!(interactor_limits(&problem).wall > limits.wall, "{dir}");
    }
}
