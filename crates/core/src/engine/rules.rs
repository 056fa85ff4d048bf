//! Requirements on some of a solution's tests (Kattis `submissions.yaml` keyed by test groups,
//! and `message`), checked on a judged solution's report.

use crate::package::TestRule;
use judge_model::result::SubmissionReport;

/// What the package's expectations besides the final verdict and score find wrong: its
/// requirements on some tests, and `permitted` on every test judged (Kattis: an `accepted/`
/// submission may not TLE on a test even when a legacy grader accepts it).
pub fn expectation_failures(
    options: &super::JudgeOptions,
    report: &SubmissionReport,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(permitted) = &options.permitted {
        if let Some(t) = report
            .tests
            .iter()
            .find(|t| !permitted.contains(&t.verdict))
        {
            let names: Vec<&str> = permitted.iter().map(|v| v.code()).collect();
            out.push(format!(
                "permitted {} on every test, but test {} got {}",
                names.join(", "),
                t.name,
                t.verdict.code()
            ));
        }
    }
    out.extend(rule_failures(&options.rules, report));
    out
}

/// What each rule finds wrong with `report`, one line each (empty: every rule holds). Only the
/// tests judged count: a solution with rules is judged to the end.
pub fn rule_failures(rules: &[TestRule], report: &SubmissionReport) -> Vec<String> {
    let mut out = Vec::new();
    for rule in rules {
        let tests: Vec<_> = report
            .tests
            .iter()
            .filter(|t| rule.covers(&t.name))
            .collect();
        let names = |verdicts: &[judge_model::Verdict]| {
            verdicts
                .iter()
                .map(|v| v.code())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if tests.is_empty() && (rule.permitted.is_some() || rule.required.is_some()) {
            out.push(format!("{}: no test judged matches it", rule.origin));
            continue;
        }
        if let Some(permitted) = &rule.permitted {
            if let Some(t) = tests.iter().find(|t| !permitted.contains(&t.verdict)) {
                out.push(format!(
                    "{}: permits {} but test {} got {}",
                    rule.origin,
                    names(permitted),
                    t.name,
                    t.verdict.code()
                ));
            }
        }
        if let Some(required) = &rule.required {
            if !tests.iter().any(|t| required.contains(&t.verdict)) {
                out.push(format!(
                    "{}: requires {} on one of its {} tests, none got it",
                    rule.origin,
                    names(required),
                    tests.len()
                ));
            }
        }
        if let Some(message) = &rule.message {
            if !tests.iter().any(|t| t.message.contains(message.as_str())) {
                out.push(format!(
                    "{}: no test's message contains `{message}`",
                    rule.origin
                ));
            }
        }
        if let Some(expected) = rule.score {
            let group = report.groups.iter().find(|g| {
                rule.tests
                    .iter()
                    .any(|p| crate::package::kattis::glob_match(p, &g.name))
            });
            match group {
                None => out.push(format!(
                    "{}: a score for a group the problem does not score",
                    rule.origin
                )),
                Some(g) if !expected.holds(g.score, g.max_score) => out.push(format!(
                    "{}: expected {} but group {} got {}",
                    rule.origin,
                    expected.describe(),
                    g.name,
                    judge_model::score::show(g.score)
                )),
                Some(_) => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use judge_model::result::TestResult;
    use judge_model::score::{Expected, GroupScore};
    use judge_model::Verdict::{self, AC, TLE, WA};
    use std::time::Duration;

    fn report(tests: &[(&str, Verdict, &str)]) -> SubmissionReport {
        let compile = judge_model::result::CompileReport {
            language: "Python 3".into(),
            ok: true,
            cached: false,
            time: Duration::ZERO,
            message: String::new(),
        };
        let mut r = SubmissionReport::new(AC, compile);
        for (name, verdict, message) in tests {
            r.record(
                TestResult {
                    name: name.to_string(),
                    verdict: *verdict,
                    time: Duration::ZERO,
                    wall: Duration::ZERO,
                    memory: 0,
                    message: message.to_string(),
                    mismatch: None,
                    checker_score: None,
                    passes: None,
                    transcript: None,
                    stdout: None,
                    stderr: None,
                },
                true,
            );
        }
        r
    }

    fn rule(tests: &[&str]) -> TestRule {
        TestRule {
            tests: tests.iter().map(|t| t.to_string()).collect(),
            permitted: None,
            required: None,
            score: None,
            message: None,
            origin: "rule".into(),
        }
    }

    #[test]
    fn rules_check_the_tests_of_their_groups_only() {
        let r = report(&[
            ("sample/1", AC, ""),
            ("secret/easy-1", AC, ""),
            ("secret/hard-1", TLE, "CPU time 1.0 s is over the limit"),
            ("secret/hard-2", WA, "expected 3"),
        ]);
        let easy_ac = TestRule {
            permitted: Some(vec![AC]),
            ..rule(&["sample", "secret/*-easy*", "secret/easy-?"])
        };
        assert!(rule_failures(&[easy_ac], &r).is_empty());
        // A group matches its tests: `secret` covers all three.
        let all_ac = TestRule {
            permitted: Some(vec![AC]),
            ..rule(&["secret"])
        };
        assert_eq!(
            rule_failures(&[all_ac], &r),
            ["rule: permits AC but test secret/hard-1 got TLE"]
        );
        let hard_tle = TestRule {
            permitted: Some(vec![AC, TLE]),
            required: Some(vec![TLE]),
            ..rule(&["secret/hard-*"])
        };
        assert_eq!(
            rule_failures(&[hard_tle], &r),
            ["rule: permits AC, TLE but test secret/hard-2 got WA"]
        );
        let wa_required = TestRule {
            required: Some(vec![WA]),
            message: Some("expected 4".into()),
            ..rule(&["sample"])
        };
        assert_eq!(
            rule_failures(&[wa_required], &r),
            [
                "rule: requires WA on one of its 1 tests, none got it",
                "rule: no test's message contains `expected 4`"
            ]
        );
        // Nothing matches: the rule cannot hold.
        let none = TestRule {
            required: Some(vec![AC]),
            ..rule(&["secret/medium-*"])
        };
        assert_eq!(
            rule_failures(&[none], &r),
            ["rule: no test judged matches it"]
        );
        // A message anywhere (no pattern).
        let anywhere = TestRule {
            message: Some("over the limit".into()),
            ..rule(&[])
        };
        assert!(rule_failures(&[anywhere], &r).is_empty());
    }

    #[test]
    fn permitted_holds_on_every_test_judged() {
        // A legacy grader may accept a submission that timed out on a test; `accepted/`
        // (permitted: AC) does not.
        let r = report(&[("secret/1", AC, ""), ("secret/2", TLE, "slow")]);
        let options = crate::engine::JudgeOptions {
            permitted: Some(vec![AC]),
            ..Default::default()
        };
        assert_eq!(
            expectation_failures(&options, &r),
            ["permitted AC on every test, but test secret/2 got TLE"]
        );
        let options = crate::engine::JudgeOptions {
            permitted: Some(vec![AC, TLE]),
            ..Default::default()
        };
        assert!(expectation_failures(&options, &r).is_empty());
    }

    #[test]
    fn a_group_score_rule_reads_that_groups_score() {
        let mut r = report(&[("secret/g1/1", AC, "")]);
        r.groups = vec![GroupScore {
            name: "secret/g1".into(),
            score: 30.0,
            max_score: Some(40.0),
            verdict: AC,
            note: None,
        }];
        let thirty = TestRule {
            score: Some(Expected::Between(30.0, 30.0)),
            ..rule(&["secret/g1"])
        };
        assert!(rule_failures(&[thirty], &r).is_empty());
        let forty = TestRule {
            score: Some(Expected::Between(40.0, 40.0)),
            ..rule(&["secret/g1"])
        };
        assert_eq!(
            rule_failures(&[forty], &r),
            ["rule: expected score 40 but group secret/g1 got 30"]
        );
        let other = TestRule {
            score: Some(Expected::Between(1.0, 1.0)),
            ..rule(&["secret/g2"])
        };
        assert_eq!(
            rule_failures(&[other], &r),
            ["rule: a score for a group the problem does not score"]
        );
    }
}
