//! The human report: a table of tests as they finish, then the verdict and, on a wrong answer,
//! where the output differs. Status lines go to stderr, results to stdout.

use super::{mib, secs};
use crate::build::CompileReport;
use crate::judge::{Reporter, SubmissionReport, TestResult};
use crate::package::TestCase;
use crate::verdict::Verdict;
use std::io::Write;
use std::path::Path;

/// Paints text with an ANSI colour when colour is on.
pub struct Paint {
    pub on: bool,
}

impl Paint {
    pub fn verdict(&self, v: Verdict, text: &str) -> String {
        let code = match v {
            Verdict::AC => "32",
            Verdict::JE => "35",
            Verdict::CE => "33",
            _ => "31",
        };
        self.wrap(code, text)
    }

    pub fn bold(&self, text: &str) -> String {
        self.wrap("1", text)
    }

    pub fn dim(&self, text: &str) -> String {
        self.wrap("2", text)
    }

    fn wrap(&self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// A cargo-like status line on stderr: right-aligned verb, then the rest.
pub fn status(paint: &Paint, verb: &str, rest: &str) {
    let verb = format!("{verb:>12}");
    let verb = if paint.on {
        format!("\x1b[1;32m{verb}\x1b[0m")
    } else {
        verb
    };
    crate::errln!("{verb} {rest}");
}

/// Prints the test table of one `judge run` as tests finish.
pub struct TableReporter<W: Write> {
    out: W,
    paint: Paint,
    /// Paint for stderr status lines.
    status_paint: Paint,
    name_width: usize,
    header_done: bool,
}

impl<W: Write> TableReporter<W> {
    pub fn new(out: W, colour: bool, status_colour: bool, tests: &[TestCase]) -> Self {
        let name_width = tests
            .iter()
            .map(|t| t.name.chars().count())
            .max()
            .unwrap_or(4)
            .max(4);
        TableReporter {
            out,
            paint: Paint { on: colour },
            status_paint: Paint { on: status_colour },
            name_width,
            header_done: false,
        }
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Reporter for TableReporter<W> {
    fn compile_started(&mut self, source: &Path) {
        status(
            &self.status_paint,
            "Compiling",
            &source.display().to_string(),
        );
    }

    fn compiled(&mut self, report: &CompileReport) {
        if report.ok {
            status(
                &self.status_paint,
                "Compiled",
                &format!("{} in {}", report.language, secs(report.time)),
            );
        }
    }

    fn test_finished(&mut self, r: &TestResult) {
        if !self.header_done {
            self.header_done = true;
            let head = format!(
                "{:<w$}  {:<7}  {:>9}  {:>10}",
                "test",
                "verdict",
                "time",
                "memory",
                w = self.name_width
            );
            let _ = writeln!(self.out, "{}", self.paint.bold(&head));
        }
        let verdict = self
            .paint
            .verdict(r.verdict, &format!("{:<7}", r.verdict.code()));
        let mut line = format!(
            "{:<w$}  {}  {:>9}  {:>10}",
            r.name,
            verdict,
            secs(r.time),
            mib(r.memory),
            w = self.name_width
        );
        if r.verdict != Verdict::AC && !r.message.is_empty() {
            line.push_str("  ");
            line.push_str(&self.paint.dim(&first_line(&r.message, 100)));
        }
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
    }
}

/// The closing lines of a `judge run`: verdict, and the details of the first failure.
pub fn render_summary(report: &SubmissionReport, total_tests: usize, colour: bool) -> String {
    let paint = Paint { on: colour };
    let mut s = String::new();
    let v = report.verdict;
    let headline = format!("{} ({})", v.code(), v.long_name());
    match v {
        Verdict::CE => {
            s.push_str(&format!("\n{}\n", paint.verdict(v, &headline)));
            for line in report.compile.message.lines() {
                s.push_str(&format!("  {line}\n"));
            }
        }
        Verdict::AC => {
            s.push_str(&format!(
                "\n{}: {} tests passed, slowest {}, peak memory {}\n",
                paint.verdict(v, &headline),
                report.tests.len(),
                secs(report.max_time()),
                mib(report.tests.iter().map(|t| t.memory).max().unwrap_or(0))
            ));
        }
        _ => {
            let failed = report.first_failure();
            let passed = report
                .tests
                .iter()
                .take_while(|t| t.verdict == Verdict::AC)
                .count();
            let on = failed
                .map(|t| format!(" on test {}", t.name))
                .unwrap_or_default();
            s.push_str(&format!(
                "\n{}{on} ({passed} of {total_tests} tests passed before it)\n",
                paint.verdict(v, &headline)
            ));
            if let Some(t) = failed {
                if !t.message.is_empty() {
                    s.push_str(&format!("  {}\n", t.message));
                }
                if let Some(m) = &t.mismatch {
                    if !m.diff.is_empty() {
                        s.push_str(&format!(
                            "  {}\n",
                            paint.dim("diff (- expected, + your output):")
                        ));
                        for line in m.diff.lines() {
                            s.push_str(&format!("    {line}\n"));
                        }
                    }
                }
            }
        }
    }
    s
}

fn first_line(text: &str, cap: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() > cap {
        format!("{}…", line.chars().take(cap).collect::<String>())
    } else {
        line.to_string()
    }
}
