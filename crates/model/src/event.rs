//! The one event type: everything a subcommand does that a reporter may show. The engine and the
//! setter tools emit [`Event`]s into a [`Reporter`] and never print; reporters (the `judge-report` crate)
//! render them as a table, a JSON document, JSON Lines or JUnit XML.
//!
//! Events carry all the data a renderer needs (the whole test result, the compile report, the
//! findings), so a reporter never reaches back into the engine: a stream consumer (a web page, a
//! worker) sees what the table sees. Every event names its problem, and those about a solution
//! its solution and its *run*: one judging of one solution, unique within the judge process (a
//! solution judged twice gets two runs). Reporters are `Send`, and [`Shared`] lets several
//! threads feed one reporter.

use crate::finding::{Counterexample, Finding, GenSummary, TimeAdvice};
use crate::result::{CompileReport, SubmissionReport, TestResult};
use crate::score::Expected;
use crate::Verdict;
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Version of the events' JSON form (`--format jsonl`); fields are only ever added.
pub const SCHEMA: u32 = 1;

/// One judging of one solution, unique within this judge process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct RunId(pub u64);

impl RunId {
    /// A run id no other run of this process has.
    pub fn next() -> RunId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        RunId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// A test: its position in judging order (1-based) and its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TestId {
    pub index: usize,
    pub name: String,
}

/// Something that happened. Serialised with `"event": "<snake_case name>"` beside the fields.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A subcommand begins: which one, and how isolated its runs are.
    Started {
        command: String,
        isolation: IsolationLevel,
    },
    /// A problem's package loaded (`name`, test names in judging order, limits) or not (`name`
    /// empty, no tests).
    ProblemStarted {
        problem: String,
        dir: String,
        name: String,
        tests: Vec<String>,
        #[serde(serialize_with = "crate::units::ser_ms")]
        time_limit_ms: std::time::Duration,
        memory_limit_kib: u64,
    },
    /// A step of a setter tool: `verb` as in the status lines ("Validating", "Generating",
    /// "Answering", "Checking", "Stress") and what, often with `i/N`.
    Step {
        problem: String,
        verb: String,
        what: String,
    },
    CompileStarted {
        problem: String,
        solution: String,
        run: RunId,
    },
    CompileFinished {
        problem: String,
        solution: String,
        run: RunId,
        compile: CompileReport,
    },
    TestStarted {
        problem: String,
        solution: String,
        run: RunId,
        test: TestId,
        /// How many tests the problem has.
        of: usize,
    },
    TestFinished {
        problem: String,
        solution: String,
        run: RunId,
        test: TestId,
        result: TestResult,
    },
    /// A test judged beside other jobs (`--jobs`) got a verdict near the time limit (CPU time
    /// within a factor 1.5 of it, or TLE), so it was judged again with no other job running;
    /// `alone` is the result that counts (the `test_finished` that follows carries it too).
    Rejudged {
        problem: String,
        solution: String,
        run: RunId,
        test: TestId,
        beside: Box<TestResult>,
        alone: Box<TestResult>,
    },
    /// A solution is judged (`report`) or could not be (`error`). `expected` is the verdict its
    /// folder expects (`verify`), `matches` whether it got it.
    SolutionFinished {
        problem: String,
        solution: String,
        run: RunId,
        #[serde(skip_serializing_if = "Option::is_none")]
        expected: Option<Verdict>,
        /// Every verdict the package allows when it allows more than `expected` (Kattis and
        /// Polygon packages); `matches` is whether the verdict is one of them.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        allowed: Vec<Verdict>,
        /// The score the package expects (a scored problem's Kattis `score` or
        /// `partially_accepted/`); `matches` also says whether the score is one of them.
        #[serde(skip_serializing_if = "Option::is_none")]
        expected_score: Option<Expected>,
        #[serde(skip_serializing_if = "Option::is_none")]
        matches: Option<bool>,
        /// What the package's requirements on some of its tests (Kattis `submissions.yaml`
        /// keyed by test groups, `message`) find wrong; `matches` is false when any.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        rule_failures: Vec<String>,
        /// `JE` when not judged.
        verdict: Verdict,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        report: Option<SubmissionReport>,
    },
    /// A solution not judged although nothing is wrong with it (`verify`: no toolchain for its
    /// language here, or a language dialect the table lacks); it counts as neither an error nor
    /// a failure.
    SolutionSkipped {
        problem: String,
        solution: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        expected: Option<Verdict>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        allowed: Vec<Verdict>,
        reason: String,
    },
    /// Something the user should know that is not a verdict (isolation, a limit too tight).
    Warning {
        #[serde(skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
        message: String,
    },
    /// Something worth knowing that is neither a warning nor a verdict (`--test` judges a subset).
    Note {
        #[serde(skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
        message: String,
    },
    /// A problem is done: what is wrong with its package (`verify`), and the time-limit advice.
    ProblemFinished {
        problem: String,
        findings: Vec<Finding>,
        #[serde(skip_serializing_if = "Option::is_none")]
        advice: Option<TimeAdvice>,
        judge_errors: usize,
        failures: usize,
        /// `verify`: the package's format and the time limit its solutions were judged with.
        #[serde(skip_serializing_if = "Option::is_none")]
        package: Option<PackageInfo>,
    },
    /// `judge gen` is done: which files it wrote.
    Generated {
        problem: String,
        dir: String,
        #[serde(flatten)]
        summary: GenSummary,
    },
    /// `judge stress` is done: the smallest failing input it found (or none in `seconds`), and
    /// the files it saved it to.
    StressFinished {
        problem: String,
        solution: String,
        seconds: f64,
        found: Option<Counterexample>,
        saved: Vec<String>,
    },
    /// The subcommand is done; `exit` is the status it ends with.
    Finished { exit: i32 },
}

impl Event {
    /// The problem the event is about, if any.
    pub fn problem(&self) -> Option<&str> {
        match self {
            Event::Started { .. } | Event::Finished { .. } => None,
            Event::Warning { problem, .. } | Event::Note { problem, .. } => problem.as_deref(),
            Event::ProblemStarted { problem, .. }
            | Event::Step { problem, .. }
            | Event::CompileStarted { problem, .. }
            | Event::CompileFinished { problem, .. }
            | Event::TestStarted { problem, .. }
            | Event::TestFinished { problem, .. }
            | Event::Rejudged { problem, .. }
            | Event::SolutionFinished { problem, .. }
            | Event::SolutionSkipped { problem, .. }
            | Event::ProblemFinished { problem, .. }
            | Event::Generated { problem, .. }
            | Event::StressFinished { problem, .. } => Some(problem),
        }
    }
}

/// What `verify` says of a package besides its findings: its format and the time limit its
/// solutions were judged with, and where that limit came from (`None` when the package did not
/// load).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PackageInfo {
    /// `native`, `kattis-legacy`, `kattis-2025-09`, `polygon` (`None`: not a package).
    pub format: Option<String>,
    #[serde(serialize_with = "crate::units::ser_opt_ms")]
    pub time_limit_ms: Option<std::time::Duration>,
    /// "problem.xml <time-limit> 2000 ms", "derived: …".
    pub time_limit_source: Option<String>,
}

/// How isolated a command's runs are (the sandbox's own summary, as the events carry it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IsolationLevel {
    /// Every layer active: measurements exact, hostile code contained.
    Full,
    /// Some layers missing: runs work, containment or measurement is weaker.
    Partial,
    /// Plain processes with rlimits and wait4 only.
    None,
}

/// Renders events. `Send`, so a reporter can live on another thread than the engines feeding it.
pub trait Reporter: Send {
    fn event(&mut self, event: &Event);
}

/// Shows nothing.
pub struct Silent;

impl Reporter for Silent {
    fn event(&mut self, _: &Event) {}
}

/// Keeps every event (for tests and for reporters that render at the end).
#[derive(Default)]
pub struct Collect(pub Vec<Event>);

impl Reporter for Collect {
    fn event(&mut self, event: &Event) {
        self.0.push(event.clone());
    }
}

/// One reporter fed from several threads: each clone forwards to the same reporter, one event
/// at a time, in the order they arrive.
pub struct Shared(Arc<Mutex<Box<dyn Reporter>>>);

impl Shared {
    pub fn new(reporter: Box<dyn Reporter>) -> Shared {
        Shared(Arc::new(Mutex::new(reporter)))
    }
}

impl Clone for Shared {
    fn clone(&self) -> Shared {
        Shared(Arc::clone(&self.0))
    }
}

impl Reporter for Shared {
    fn event(&mut self, event: &Event) {
        // A reporter that panicked (a closed stdout unwinds through it) leaves the lock poisoned;
        // the data inside is still a reporter.
        let mut inner = self.0.lock().unwrap_or_else(|e| e.into_inner());
        inner.event(event);
    }
}

impl<R: Reporter + ?Sized> Reporter for &mut R {
    fn event(&mut self, event: &Event) {
        (**self).event(event);
    }
}

impl<R: Reporter + ?Sized> Reporter for Box<R> {
    fn event(&mut self, event: &Event) {
        (**self).event(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>() {}

    #[test]
    fn events_and_reporters_cross_threads() {
        assert_send::<Event>();
        assert_send::<Shared>();
        let collected = Arc::new(Mutex::new(Vec::new()));
        struct Into(Arc<Mutex<Vec<i32>>>);
        impl Reporter for Into {
            fn event(&mut self, e: &Event) {
                if let Event::Finished { exit } = e {
                    self.0.lock().unwrap().push(*exit);
                }
            }
        }
        let shared = Shared::new(Box::new(Into(collected.clone())));
        let threads: Vec<_> = (0..4)
            .map(|i| {
                let mut r = shared.clone();
                std::thread::spawn(move || r.event(&Event::Finished { exit: i }))
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let mut got = collected.lock().unwrap().clone();
        got.sort();
        assert_eq!(got, [0, 1, 2, 3]);
    }

    #[test]
    fn an_event_serialises_with_its_name_and_ids() {
        let e = Event::TestStarted {
            problem: "sum".into(),
            solution: "a.cpp".into(),
            run: RunId(7),
            test: TestId {
                index: 2,
                name: "sample-2".into(),
            },
            of: 5,
        };
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            r#"{"event":"test_started","problem":"sum","solution":"a.cpp","run":7,"test":{"index":2,"name":"sample-2"},"of":5}"#
        );
    }
}
