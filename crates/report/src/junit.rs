//! `--format junit`: JUnit XML, the format CI systems show, written when the subcommand ends.
//!
//! One `<testsuite>` per solution, one `<testcase>` per test (`classname` the problem, `name` the
//! test, `time` its CPU time in seconds). `judge run`: a test whose verdict is not AC is a
//! `<failure>` (`type` the verdict code, `message` the checker's message; JE, the judge's
//! fault, an `<error>`); tests not run after
//! the first failure are `<skipped>`; a compilation error is a failing `compile` case.
//! `judge verify`: a solution whose verdict matches its expectation passes in every case (the
//! verdicts are in `system-out`); on a mismatch, each test with another verdict than AC fails,
//! and so does the solution's `expected verdict` case (present for every solution, so a
//! solution expected to fail that passes everything fails too). A problem's findings are the
//! cases of a `<problem>` suite: an invalid or stale test is a `<failure>`, a broken package
//! part an `<error>`.
//! `judge gen`: one `gen` suite whose cases are the inputs and answers written (one passing
//! `gen` case when nothing was). `judge stress`: one `stress` suite with one case named after
//! the solution, a `<failure>` (`type` the verdict) carrying the counterexample when one was
//! found.

use super::human::Out;
use judge_model::event::{Event, Reporter};
use judge_model::finding::{Finding, Severity};
use judge_model::result::SubmissionReport;
use judge_model::Verdict;
use std::fmt::Write as _;
use std::io::Write;

/// Text for XML content and attribute values: the five markup characters escaped, and
/// characters XML 1.0 cannot carry (most control characters) written as `\u{..}`.
pub fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&apos;"),
            '\t' => s.push_str("&#9;"),
            '\n' => s.push_str("&#10;"),
            '\r' => s.push_str("&#13;"),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(s, "\\u{{{:x}}}", c as u32);
            }
            c => s.push(c),
        }
    }
    s
}

/// One `<testcase>`.
struct Case {
    name: String,
    classname: String,
    time: f64,
    /// (element, type, message, text): `failure`, `error` or `skipped`.
    outcome: Option<(&'static str, String, String, String)>,
    system_out: String,
}

struct Suite {
    name: String,
    cases: Vec<Case>,
}

/// Gathers cases from events and writes the document at `finished`.
pub struct Junit {
    out: Out,
    problem: String,
    tests: Vec<String>,
    suites: Vec<Suite>,
    /// `judge verify`: problems get a package suite.
    verify: bool,
}

impl Junit {
    pub fn new(out: Out, verify: bool) -> Junit {
        Junit {
            out,
            verify,
            problem: String::new(),
            tests: Vec::new(),
            suites: Vec::new(),
        }
    }

    fn solution(
        &mut self,
        solution: &str,
        expected: Option<Verdict>,
        allowed: &[Verdict],
        error: Option<&str>,
        report: Option<&SubmissionReport>,
    ) {
        let classname = self.problem.clone();
        // Every verdict the package allows (one, unless the event lists several).
        let allowed: Vec<Verdict> = if allowed.is_empty() {
            expected.into_iter().collect()
        } else {
            allowed.to_vec()
        };
        let allowed_text = allowed
            .iter()
            .map(|v| v.code())
            .collect::<Vec<_>>()
            .join(" or ");
        let holds = match (expected, report) {
            (Some(_), Some(r)) => Some(allowed.contains(&r.verdict)),
            (Some(_), None) => Some(false),
            (None, _) => None,
        };
        let mut cases = Vec::new();
        let case = |name: &str, time: f64, outcome, system_out: String| Case {
            name: name.to_string(),
            classname: classname.clone(),
            time,
            outcome,
            system_out,
        };
        if let Some(error) = error {
            cases.push(case(
                "judge",
                0.0,
                Some(("error", "JE".into(), first_line(error), error.to_string())),
                String::new(),
            ));
        }
        if let Some(r) = report {
            if r.verdict == Verdict::CE {
                let outcome = match holds {
                    Some(true) => None,
                    _ => Some((
                        "failure",
                        "CE".to_string(),
                        "compilation error".to_string(),
                        r.compile.message.clone(),
                    )),
                };
                cases.push(case(
                    "compile",
                    r.compile.time.as_secs_f64(),
                    outcome,
                    String::new(),
                ));
            }
            for t in &r.tests {
                let failed = t.verdict != Verdict::AC && holds != Some(true);
                let outcome = failed.then(|| {
                    let what = match expected {
                        Some(e) => format!("expected {}, got {}: ", e.code(), t.verdict.code()),
                        None => format!("{}: ", t.verdict.code()),
                    };
                    let details = match &t.mismatch {
                        Some(m) => judge_model::diff::render(
                            &m.window,
                            &judge_model::paint::Paint { on: false },
                            "",
                        ),
                        None => String::new(),
                    };
                    // A judge error is not the solution's fault.
                    let element = if t.verdict == Verdict::JE {
                        "error"
                    } else {
                        "failure"
                    };
                    (
                        element,
                        t.verdict.code().to_string(),
                        format!("{what}{}", first_line(&t.message)),
                        format!("{}\n{details}", t.message).trim_end().to_string(),
                    )
                });
                let system_out = format!(
                    "verdict {}, {:.3} s CPU, {:.3} s wall, {} KiB{}",
                    t.verdict.code(),
                    t.time.as_secs_f64(),
                    t.wall.as_secs_f64(),
                    t.memory / 1024,
                    if t.message.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", t.message)
                    }
                );
                cases.push(case(&t.name, t.time.as_secs_f64(), outcome, system_out));
            }
            if r.verdict != Verdict::CE {
                for name in self.tests.iter().skip(r.tests.len()) {
                    let why = "not run: judging stops at the first failure".to_string();
                    cases.push(case(
                        name,
                        0.0,
                        Some(("skipped", String::new(), why, String::new())),
                        String::new(),
                    ));
                }
            }
        }
        if expected.is_some() {
            let got = report.map(|r| r.verdict).unwrap_or(Verdict::JE);
            let outcome = (holds != Some(true)).then(|| {
                let at = report
                    .and_then(SubmissionReport::first_failure)
                    .map(|t| format!(" on test {}", t.name))
                    .unwrap_or_default();
                (
                    "failure",
                    got.code().to_string(),
                    format!("expected {allowed_text} but got {}{at}", got.code()),
                    String::new(),
                )
            });
            let system_out = format!("expected {allowed_text}, got {}", got.code());
            cases.push(case("expected verdict", 0.0, outcome, system_out));
        }
        self.suites.push(Suite {
            name: solution.to_string(),
            cases,
        });
    }

    fn findings(&mut self, findings: &[Finding]) {
        if !self.verify {
            return;
        }
        let cases = findings
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let (element, kind) = match f.severity {
                    Severity::Broken => ("error", "broken"),
                    Severity::Failed => ("failure", "failed"),
                };
                Case {
                    name: format!("finding {}", i + 1),
                    classname: self.problem.clone(),
                    time: 0.0,
                    outcome: Some((
                        element,
                        kind.into(),
                        first_line(&f.message),
                        f.message.clone(),
                    )),
                    system_out: String::new(),
                }
            })
            .collect::<Vec<_>>();
        let cases = if cases.is_empty() {
            vec![Case {
                name: "package".into(),
                classname: self.problem.clone(),
                time: 0.0,
                outcome: None,
                system_out: String::new(),
            }]
        } else {
            cases
        };
        self.suites.push(Suite {
            name: format!("{} (package)", self.problem),
            cases,
        });
    }

    /// `judge gen`'s suite: a passing case per file written.
    fn generated(&mut self, problem: &str, summary: &judge_model::GenSummary) {
        let case = |name: String| Case {
            name,
            classname: problem.to_string(),
            time: 0.0,
            outcome: None,
            system_out: String::new(),
        };
        let mut cases: Vec<Case> = summary
            .inputs_written
            .iter()
            .map(|t| case(format!("{t}.in")))
            .chain(
                summary
                    .answers_written
                    .iter()
                    .map(|t| case(format!("{t}.ans"))),
            )
            .chain(
                summary
                    .files_written
                    .iter()
                    .flatten()
                    .map(|f| case(f.clone())),
            )
            .collect();
        if cases.is_empty() {
            cases.push(case("gen".into()));
        }
        self.suites.push(Suite {
            name: "gen".into(),
            cases,
        });
    }

    /// `judge stress`'s suite: the solution's case, failing with the counterexample.
    fn stressed(
        &mut self,
        problem: &str,
        solution: &str,
        seconds: f64,
        found: Option<&judge_model::Counterexample>,
    ) {
        let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let (outcome, system_out) = match found {
            Some(c) => (
                Some((
                    "failure",
                    c.verdict.code().to_string(),
                    format!("{}: {}", c.verdict.code(), first_line(&c.message)),
                    format!(
                        "input:\n{}\nexpected:\n{}\ngot:\n{}",
                        lossy(&c.input),
                        lossy(&c.answer),
                        lossy(&c.output)
                    ),
                )),
                format!(
                    "failed after {} input(s), shrunk in {} step(s)",
                    c.tries, c.shrink_steps
                ),
            ),
            None => (None, format!("no failing input in {seconds} s")),
        };
        self.suites.push(Suite {
            name: "stress".into(),
            cases: vec![Case {
                name: solution.to_string(),
                classname: problem.to_string(),
                time: 0.0,
                outcome,
                system_out,
            }],
        });
    }

    /// The whole document.
    pub fn document(&self) -> String {
        let count = |suite: &Suite, element: &str| {
            suite
                .cases
                .iter()
                .filter(|c| c.outcome.as_ref().is_some_and(|o| o.0 == element))
                .count()
        };
        let time = |suite: &Suite| suite.cases.iter().map(|c| c.time).sum::<f64>();
        let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let all = |element: &str| self.suites.iter().map(|x| count(x, element)).sum::<usize>();
        let _ = writeln!(
            s,
            "<testsuites name=\"judge\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
            self.suites.iter().map(|x| x.cases.len()).sum::<usize>(),
            all("failure"),
            all("error"),
            all("skipped"),
            self.suites.iter().map(time).sum::<f64>()
        );
        for suite in &self.suites {
            let _ = writeln!(
                s,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
                escape(&suite.name),
                suite.cases.len(),
                count(suite, "failure"),
                count(suite, "error"),
                count(suite, "skipped"),
                time(suite)
            );
            for c in &suite.cases {
                let _ = write!(
                    s,
                    "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
                    escape(&c.name),
                    escape(&c.classname),
                    c.time
                );
                if c.outcome.is_none() && c.system_out.is_empty() {
                    s.push_str("/>\n");
                    continue;
                }
                s.push_str(">\n");
                if let Some((element, kind, message, text)) = &c.outcome {
                    let _ = write!(s, "      <{element}");
                    if !kind.is_empty() {
                        let _ = write!(s, " type=\"{}\"", escape(kind));
                    }
                    let _ = write!(s, " message=\"{}\"", escape(message));
                    if text.is_empty() {
                        s.push_str("/>\n");
                    } else {
                        let _ = writeln!(s, ">{}</{element}>", escape(text));
                    }
                }
                if !c.system_out.is_empty() {
                    let _ = writeln!(
                        s,
                        "      <system-out>{}</system-out>",
                        escape(&c.system_out)
                    );
                }
                s.push_str("    </testcase>\n");
            }
            s.push_str("  </testsuite>\n");
        }
        s.push_str("</testsuites>\n");
        s
    }
}

impl Reporter for Junit {
    fn event(&mut self, e: &Event) {
        if super::side_note(e) {
            return;
        }
        match e {
            Event::ProblemStarted { problem, tests, .. } => {
                self.problem = problem.clone();
                self.tests = tests.clone();
            }
            Event::SolutionFinished {
                solution,
                expected,
                allowed,
                error,
                report,
                ..
            } => self.solution(
                solution,
                *expected,
                allowed,
                error.as_deref(),
                report.as_ref(),
            ),
            Event::SolutionSkipped {
                solution, reason, ..
            } => self.suites.push(Suite {
                name: solution.to_string(),
                cases: vec![Case {
                    name: "expected verdict".into(),
                    classname: self.problem.clone(),
                    time: 0.0,
                    outcome: Some(("skipped", String::new(), reason.clone(), String::new())),
                    system_out: String::new(),
                }],
            }),
            Event::ProblemFinished { findings, .. } => self.findings(findings),
            Event::Generated {
                problem, summary, ..
            } => self.generated(problem, summary),
            Event::StressFinished {
                problem,
                solution,
                seconds,
                found,
                ..
            } => self.stressed(problem, solution, *seconds, found.as_ref()),
            Event::Finished { .. } => {
                let doc = self.document();
                let _ = self.out.write_all(doc.as_bytes());
                let _ = self.out.flush();
            }
            _ => {}
        }
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}
