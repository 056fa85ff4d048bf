//! The human report: a table of tests as they finish, then the verdict and, on a wrong answer,
//! where the output differs. Status lines go to stderr, results to stdout.

use judge_model::event::{Event, Reporter};
use judge_model::paint::Paint;
use judge_model::result::CompileReport;
use judge_model::result::{SubmissionReport, TestResult};
use judge_model::score;
use judge_model::units::{mib, secs};
use judge_model::Verdict;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Stderr of a human reporter: cargo-like status lines, and on a terminal a live progress line
/// (solution, test i/N, elapsed) redrawn in place — by a ticker thread while a test runs, when
/// [`StatusLines::ticking`] — and wiped before anything else is written, so it never stays in
/// the scrollback.
pub struct StatusLines {
    shared: Arc<Mutex<Lines>>,
    ticker: Option<(Arc<AtomicBool>, std::thread::JoinHandle<()>)>,
}

struct Lines {
    err: Out,
    paint: Paint,
    /// Draw progress lines (a terminal).
    progress: bool,
    /// The progress line's text without the elapsed time.
    line: Option<String>,
    since: Option<Instant>,
    shown: bool,
    /// Visible width of the line drawn last, to blank it with spaces: no terminal escape codes,
    /// so `--color never` writes none.
    width: usize,
}

impl Lines {
    fn wipe(&mut self) {
        if self.shown {
            let _ = write!(self.err, "\r{:w$}\r", "", w = self.width);
            let _ = self.err.flush();
            self.shown = false;
            self.width = 0;
        }
    }

    fn draw(&mut self) {
        let Some(line) = &self.line else { return };
        let elapsed = self
            .since
            .map(|t| format!("  {:.1} s", t.elapsed().as_secs_f64()))
            .unwrap_or_default();
        let text = format!("{line}{elapsed}");
        let width = visible_width(&text);
        // Spaces over what is left of a longer previous line.
        let pad = self.width.saturating_sub(width);
        let _ = write!(self.err, "\r{text}{:pad$}", "");
        let _ = self.err.flush();
        self.width = width;
        self.shown = true;
    }
}

/// Characters a terminal shows for `text`: escape sequences (`\x1b[…m`) take no room.
fn visible_width(text: &str) -> usize {
    let mut width = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            width += 1;
        }
    }
    width
}

impl StatusLines {
    /// `paint` for the verbs; `progress` when stderr is a terminal.
    pub fn new(err: Out, paint: Paint, progress: bool) -> StatusLines {
        StatusLines {
            shared: Arc::new(Mutex::new(Lines {
                err,
                paint,
                progress,
                line: None,
                since: None,
                shown: false,
                width: 0,
            })),
            ticker: None,
        }
    }

    /// Redraws the progress line every `every` while one is shown (only with progress on).
    pub fn ticking(mut self, every: Duration) -> StatusLines {
        if !self.lock().progress || self.ticker.is_some() {
            return self;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, stopped) = (Arc::clone(&self.shared), Arc::clone(&stop));
        let handle = std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                std::thread::park_timeout(every);
                if stopped.load(Ordering::Relaxed) {
                    break;
                }
                let mut lines = shared.lock().unwrap_or_else(|e| e.into_inner());
                if lines.shown {
                    lines.draw();
                }
            }
        });
        self.ticker = Some((stop, handle));
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Lines> {
        // A write that unwound (a closed stderr) leaves it poisoned; the state is still whole.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `   Compiling rest`, right-aligned verb as cargo's.
    pub fn status(&self, verb: &str, rest: &str) {
        let mut lines = self.lock();
        lines.wipe();
        let verb = format!("{verb:>12}");
        let verb = lines.paint.wrap("1;32", &verb);
        let _ = writeln!(lines.err, "{verb} {rest}");
    }

    /// Any other text (warnings).
    pub fn write(&self, text: &str) {
        let mut lines = self.lock();
        lines.wipe();
        let _ = write!(lines.err, "{text}");
    }

    /// Starts the elapsed-time clock of the progress line (a solution's tests begin).
    pub fn start_clock(&self) {
        self.lock().since = Some(Instant::now());
    }

    /// Shows `verb rest  elapsed` as the progress line.
    pub fn progress(&self, verb: &str, rest: &str) {
        let mut lines = self.lock();
        if !lines.progress {
            return;
        }
        let verb = lines.paint.wrap("1;36", &format!("{verb:>12}"));
        lines.line = Some(format!("{verb} {rest}"));
        lines.draw();
    }

    /// Wipes the progress line.
    pub fn clear(&self) {
        let mut lines = self.lock();
        lines.line = None;
        lines.wipe();
    }

    pub fn paint(&self) -> Paint {
        Paint {
            on: self.lock().paint.on,
        }
    }
}

impl Drop for StatusLines {
    fn drop(&mut self) {
        if let Some((stop, handle)) = self.ticker.take() {
            stop.store(true, Ordering::Relaxed);
            handle.thread().unpark();
            let _ = handle.join();
        }
        // Not while unwinding from a closed stderr: that write would unwind again.
        if !std::thread::panicking() {
            self.clear();
        }
    }
}

/// A writer a reporter owns: `Send`, so the reporter can be.
pub type Out = Box<dyn Write + Send>;

/// How often a progress line's elapsed time is redrawn.
pub const TICK: Duration = Duration::from_millis(250);

/// The human report of `judge run`: status lines and a progress line on stderr, the test table
/// as tests finish and the summary on stdout.
pub struct RunTable {
    out: Out,
    err: StatusLines,
    paint: Paint,
    tests: Vec<String>,
    name_width: usize,
    header_done: bool,
    show_output: bool,
}

impl RunTable {
    /// `colour` for stdout, `status_colour` for stderr, `progress` when stderr is a terminal.
    pub fn new(out: Out, err: Out, colour: bool, status_colour: bool, progress: bool) -> Self {
        RunTable {
            out,
            err: StatusLines::new(err, Paint { on: status_colour }, progress),
            paint: Paint { on: colour },
            tests: Vec::new(),
            name_width: 4,
            header_done: false,
            show_output: false,
        }
    }

    /// Shows the failing test's output and stderr under its diff (`judge run --show-output`).
    pub fn show_output(mut self, on: bool) -> Self {
        self.show_output = on;
        self
    }

    /// Redraws the progress line every so often while a test runs.
    pub fn ticking(mut self) -> Self {
        self.err = self.err.ticking(TICK);
        self
    }

    fn row(&mut self, r: &TestResult) {
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

impl Reporter for RunTable {
    fn event(&mut self, e: &Event) {
        match e {
            Event::Warning { message, .. } => self.err.write(&format!("warning: {message}\n")),
            Event::Note { message, .. } => self.err.write(&format!("note: {message}\n")),
            Event::Rejudged { .. } => self.err.write(&format!("note: {}\n", rejudged(e))),
            Event::ProblemStarted { tests, .. } => {
                self.name_width = tests
                    .iter()
                    .map(|t| t.chars().count())
                    .max()
                    .unwrap_or(4)
                    .max(4);
                self.tests = tests.clone();
            }
            Event::CompileStarted { solution, .. } => self.err.status("Compiling", solution),
            Event::CompileFinished { compile, .. } => {
                self.err.start_clock();
                if compile.ok {
                    let text = if compile.cached {
                        format!("{} (cached)", compile.language)
                    } else {
                        format!("{} in {}", compile.language, secs(compile.time))
                    };
                    self.err.status("Compiled", &text);
                    if let Some(warnings) = compiler_warnings(compile, &self.err.paint()) {
                        self.err.write(&warnings);
                    }
                }
            }
            Event::TestStarted {
                solution, test, of, ..
            } => {
                let rest = format!("{solution}  test {}/{of} ({})", test.index, test.name);
                self.err.progress("Running", &rest);
            }
            Event::TestFinished { result, .. } => {
                self.err.clear();
                self.row(result);
            }
            Event::SolutionFinished {
                report: Some(report),
                ..
            } => {
                self.err.clear();
                let summary =
                    render_summary(report, self.tests.len(), self.paint.on, self.show_output);
                let _ = write!(self.out, "{summary}");
                let _ = self.out.flush();
            }
            Event::Started { .. }
            | Event::Step { .. }
            | Event::SolutionFinished { report: None, .. }
            | Event::SolutionSkipped { .. }
            | Event::ProblemFinished { .. }
            | Event::Generated { .. }
            | Event::StressFinished { .. }
            | Event::Finished { .. } => {}
        }
    }
}

/// "sol.cpp: test 7 (big) re-judged alone: 0.910 s AC (beside other jobs: 1.020 s TLE)".
pub fn rejudged(e: &Event) -> String {
    let Event::Rejudged {
        solution,
        test,
        beside,
        alone,
        ..
    } = e
    else {
        return String::new();
    };
    format!(
        "{solution}: test {} ({}) re-judged alone: {} {} (beside other jobs: {} {})",
        test.index,
        test.name,
        secs(alone.time),
        alone.verdict.code(),
        secs(beside.time),
        beside.verdict.code()
    )
}

/// Lines of compiler warnings shown in the human output (all of them are in `--json`).
pub const WARNING_LINES: usize = 20;

/// What the compiler said about a source that compiled (its warnings), capped at
/// [`WARNING_LINES`] lines; `None` when it said nothing.
pub fn compiler_warnings(report: &CompileReport, paint: &Paint) -> Option<String> {
    if !report.ok || report.message.trim().is_empty() {
        return None;
    }
    let lines: Vec<&str> = report.message.trim_end().lines().collect();
    let verb = paint.wrap("1;33", &format!("{:>12}", "Warning"));
    let mut s = format!("{verb} the compiler says:\n");
    for line in lines.iter().take(WARNING_LINES) {
        s.push_str(&format!("  {line}\n"));
    }
    if lines.len() > WARNING_LINES {
        let more = lines.len() - WARNING_LINES;
        let text = format!(
            "… {more} more line{} (all of them with --json)",
            if more == 1 { "" } else { "s" }
        );
        s.push_str(&format!("  {}\n", paint.dim(&text)));
    }
    Some(s)
}

/// How many lines of a runtime error's stderr the summary shows without `--show-output`.
pub const CRASH_LINES: usize = 8;

/// The closing lines of a `judge run`: verdict, and the details of the first failure (with
/// `show_output`, what it printed; a runtime error's last lines of stderr in any case).
pub fn render_summary(
    report: &SubmissionReport,
    total_tests: usize,
    colour: bool,
    show_output: bool,
) -> String {
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
        Verdict::AC if report.first_failure().is_some() => {
            // A Kattis grader accepted a submission that failed some tests.
            s.push_str(&format!(
                "\n{}: {}\n",
                paint.verdict(v, &headline),
                tally(&report.tests, &paint)
            ));
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
            // Every test ran (`--all`, or the first failure was the last test): count them all.
            let all_ran = report.tests.len() == total_tests && total_tests > 0;
            if all_ran {
                s.push_str(&format!(
                    "\n{}: {}\n",
                    paint.verdict(v, &headline),
                    tally(&report.tests, &paint)
                ));
            } else {
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
            }
            if let Some(t) = failed {
                if !t.message.is_empty() {
                    let which = if all_ran {
                        format!("test {}: ", t.name)
                    } else {
                        String::new()
                    };
                    s.push_str(&format!("  {which}{}\n", t.message));
                }
                if let Some(m) = &t.mismatch {
                    s.push('\n');
                    s.push_str(&judge_model::diff::render(&m.window, &paint, "  "));
                }
                if let Some(transcript) = &t.transcript {
                    s.push_str(&judge_model::transcript::render(transcript));
                }
                s.push_str(&render_printed(t, show_output, &paint));
            }
        }
    }
    s.push_str(&render_score(report, &paint));
    s
}

/// A failing test's stdout and stderr (`show_output`), or a runtime error's last lines of
/// stderr, where a traceback names the file and line: each stream under a dim heading.
pub fn render_printed(t: &TestResult, show_output: bool, paint: &Paint) -> String {
    let mut s = String::new();
    // "output (first 4 KiB):" when cut, "stderr (empty):" when nothing was written.
    let mut block = |head: &str, when_cut: &str, lines: Vec<&str>, cut: bool| {
        let state = if lines.is_empty() {
            " (empty)".to_string()
        } else if cut {
            format!(" ({when_cut})")
        } else {
            String::new()
        };
        s.push_str(&format!("\n  {}\n", paint.dim(&format!("{head}{state}:"))));
        for line in lines {
            s.push_str(&format!("    {line}\n"));
        }
    };
    if show_output {
        if let Some(out) = &t.stdout {
            block(
                "output",
                "its first 4 KiB",
                out.text.lines().collect(),
                out.truncated,
            );
        }
        if let Some(err) = &t.stderr {
            block(
                "stderr",
                "its last 4 KiB",
                err.text.lines().collect(),
                err.truncated,
            );
        }
    } else if t.verdict == Verdict::RE {
        if let Some(err) = t.stderr.as_ref().filter(|e| !e.text.trim().is_empty()) {
            let written = err.text.lines().filter(|l| !l.trim().is_empty()).count();
            let cut = err.truncated || written > CRASH_LINES;
            block("stderr", "its last lines", err.last_lines(CRASH_LINES), cut);
        }
    }
    s
}

/// A scored problem's lines: the total, then each group's score, maximum and verdict.
pub fn render_score(report: &SubmissionReport, paint: &Paint) -> String {
    let Some(total) = report.score else {
        return String::new();
    };
    let of = |max: Option<f64>| {
        max.map(|m| format!(" of {}", score::show(m)))
            .unwrap_or_default()
    };
    let mut s = format!(
        "\n{} {}{}\n",
        paint.wrap("1", "score"),
        score::show(total),
        of(report.max_score)
    );
    let width = report
        .groups
        .iter()
        .map(|g| g.name.chars().count())
        .max()
        .unwrap_or(0);
    let scores: Vec<String> = report
        .groups
        .iter()
        .map(|g| format!("{}{}", score::show(g.score), of(g.max_score)))
        .collect();
    let score_width = scores.iter().map(|x| x.chars().count()).max().unwrap_or(0);
    for (g, text) in report.groups.iter().zip(&scores) {
        let note = g
            .note
            .as_deref()
            .map(|n| format!("  {}", paint.dim(n)))
            .unwrap_or_default();
        s.push_str(&format!(
            "  {:<width$}  {:>score_width$}  {}{note}\n",
            g.name,
            text,
            paint.verdict(g.verdict, g.verdict.code()),
        ));
    }
    if !report.skipped.is_empty() {
        // One line per reason, with how many tests and the first.
        let mut reasons: Vec<(&str, usize, &str)> = Vec::new();
        for t in &report.skipped {
            match reasons.iter_mut().find(|(why, _, _)| *why == t.why) {
                Some((_, n, _)) => *n += 1,
                None => reasons.push((&t.why, 1, &t.name)),
            }
        }
        for (why, n, first) in reasons {
            let (tests, it) = if n == 1 {
                (format!("test {first}"), "it")
            } else {
                (format!("{n} tests from {first}"), "they")
            };
            s.push_str(&format!(
                "  {}\n",
                paint.dim(&format!(
                    "not judged: {tests}: {why}, so {it} cannot change the score"
                ))
            ));
        }
    }
    s
}

/// "17 of 20 tests passed; failed: WA ×2 (first: test 7), TLE ×1 (test 12)", verdicts in the
/// order they first failed.
pub fn tally(tests: &[TestResult], paint: &Paint) -> String {
    let passed = tests.iter().filter(|t| t.verdict == Verdict::AC).count();
    let mut failed: Vec<(Verdict, usize, &str)> = Vec::new();
    for t in tests.iter().filter(|t| t.verdict != Verdict::AC) {
        match failed.iter_mut().find(|(v, _, _)| *v == t.verdict) {
            Some((_, n, _)) => *n += 1,
            None => failed.push((t.verdict, 1, &t.name)),
        }
    }
    let mut s = format!("{passed} of {} tests passed", tests.len());
    if !failed.is_empty() {
        let each: Vec<String> = failed
            .iter()
            .map(|&(v, n, first)| {
                let which = if n == 1 { "test" } else { "first: test" };
                format!("{} ×{n} ({which} {first})", paint.verdict(v, v.code()))
            })
            .collect();
        s.push_str(&format!("; failed: {}", each.join(", ")));
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn result(name: &str, verdict: Verdict, message: &str) -> TestResult {
        TestResult {
            name: name.into(),
            verdict,
            time: Duration::from_millis(3),
            wall: Duration::from_millis(4),
            memory: 1 << 20,
            message: message.into(),
            mismatch: None,
            checker_score: None,
            passes: None,
            transcript: None,
            stdout: None,
            stderr: None,
        }
    }

    fn report(tests: Vec<TestResult>) -> SubmissionReport {
        let verdict = tests
            .iter()
            .map(|t| t.verdict)
            .find(|&v| v != Verdict::AC)
            .unwrap_or(Verdict::AC);
        SubmissionReport {
            verdict,
            compile: CompileReport {
                language: "C++".into(),
                ok: true,
                cached: false,
                time: Duration::ZERO,
                message: String::new(),
            },
            tests,
            score: None,
            max_score: None,
            groups: Vec::new(),
            skipped: Vec::new(),
        }
    }

    #[test]
    fn a_scored_report_lists_each_group_under_the_total() {
        use judge_model::score::GroupScore;
        use Verdict::{AC, WA};
        let mut r = report(vec![result("a1", AC, ""), result("b1", WA, "wrong")]);
        r.score = Some(100.0 / 3.0);
        r.max_score = Some(100.0);
        let group = |name: &str, score: f64, max: f64, verdict, note: Option<&str>| GroupScore {
            name: name.into(),
            score,
            max_score: Some(max),
            verdict,
            note: note.map(String::from),
        };
        r.groups = vec![
            group("small", 100.0 / 3.0, 40.0, AC, None),
            group(
                "large-ones",
                0.0,
                60.0,
                WA,
                Some("scores nothing: group `x` is not passed"),
            ),
        ];
        let s = render_summary(&r, 2, false, false);
        let tail: Vec<&str> = s.lines().skip_while(|l| !l.starts_with("score")).collect();
        assert_eq!(
            tail,
            [
                "score 33.33 of 100",
                "  small       33.33 of 40  AC",
                "  large-ones      0 of 60  WA  scores nothing: group `x` is not passed",
            ],
            "{s}"
        );
        // A pass-fail report has no score lines.
        let plain = render_summary(&report(vec![result("1", AC, "")]), 1, false, false);
        assert!(!plain.contains("score"), "{plain}");
    }

    fn kept(text: &str, truncated: bool) -> Option<judge_model::Captured> {
        Some(judge_model::Captured {
            text: text.into(),
            truncated,
        })
    }

    #[test]
    fn show_output_prints_the_failing_tests_output_and_stderr_under_its_message() {
        let mut wa = result(
            "2",
            Verdict::WA,
            "line 1, column 1: expected `4`, found `5`",
        );
        wa.stdout = kept("5\n", false);
        wa.stderr = kept("", false);
        let r = report(vec![result("1", Verdict::AC, ""), wa]);
        let shown = render_summary(&r, 2, false, true);
        assert_eq!(
            shown,
            "\nWA (wrong answer): 1 of 2 tests passed; failed: WA ×1 (test 2)\n  \
             test 2: line 1, column 1: expected `4`, found `5`\n\
             \n  output:\n    5\n\
             \n  stderr (empty):\n"
        );
        // Without the flag a WA shows nothing of it.
        let plain = render_summary(&r, 2, false, false);
        assert!(!plain.contains("output"), "{plain}");
        let mut cut = r.clone();
        cut.tests[1].stdout = kept("5\n", true);
        let shown = render_summary(&cut, 2, false, true);
        assert!(
            shown.contains("output (its first 4 KiB):\n    5\n"),
            "{shown}"
        );
    }

    #[test]
    fn a_runtime_error_always_shows_the_last_lines_of_its_stderr() {
        let mut re = result(
            "1",
            Verdict::RE,
            "exit code 1; stderr: ZeroDivisionError: division by zero",
        );
        let mut trace = String::from("Traceback (most recent call last):\n");
        for i in 1..=4 {
            trace.push_str(&format!(
                "  File \"div.py\", line {i}, in f{i}\n    f{}()\n",
                i + 1
            ));
        }
        trace.push_str("ZeroDivisionError: division by zero\n");
        re.stderr = kept(&trace, false);
        let s = render_summary(&report(vec![re.clone()]), 1, false, false);
        let shown: Vec<&str> = s.lines().skip_while(|l| !l.contains("stderr (")).collect();
        assert_eq!(
            shown,
            [
                "  stderr (its last lines):",
                "        f2()",
                "      File \"div.py\", line 2, in f2",
                "        f3()",
                "      File \"div.py\", line 3, in f3",
                "        f4()",
                "      File \"div.py\", line 4, in f4",
                "        f5()",
                "    ZeroDivisionError: division by zero",
            ],
            "{s}"
        );
        // Nothing written: no heading.
        re.stderr = kept("\n", false);
        let s = render_summary(&report(vec![re]), 1, false, false);
        assert!(!s.contains("stderr ("), "{s}");
    }

    #[test]
    fn with_all_the_summary_counts_every_failure() {
        use Verdict::{AC, TLE, WA};
        let mut tests: Vec<TestResult> = (1..=20).map(|i| result(&i.to_string(), AC, "")).collect();
        tests[6] = result("7", WA, "line 1, column 1: expected `4`, found `5`");
        tests[9] = result("10", TLE, "CPU time over the limit");
        tests[11] = result("12", WA, "line 2, column 1: expected `1`, found `2`");
        tests[14] = result("15", WA, "line 1, column 3: expected `x`, found `y`");
        let s = render_summary(&report(tests), 20, false, false);
        assert_eq!(
            s,
            "\nWA (wrong answer): 16 of 20 tests passed; failed: WA ×3 (first: test 7), TLE ×1 (test 10)\n  \
             test 7: line 1, column 1: expected `4`, found `5`\n"
        );
    }

    #[test]
    fn stopping_at_the_first_failure_says_how_many_passed_before_it() {
        use Verdict::{AC, WA};
        let tests = vec![
            result("1", AC, ""),
            result("2", WA, "line 1, column 1: expected `4`, found `5`"),
        ];
        let s = render_summary(&report(tests), 5, false, false);
        assert_eq!(
            s,
            "\nWA (wrong answer) on test 2 (1 of 5 tests passed before it)\n  \
             line 1, column 1: expected `4`, found `5`\n"
        );
    }

    #[test]
    fn warnings_are_capped() {
        let mut r = report(vec![]).compile;
        let paint = Paint { on: false };
        assert_eq!(compiler_warnings(&r, &paint), None);
        r.message = "a.cpp:1:1: warning: one\n".into();
        assert_eq!(
            compiler_warnings(&r, &paint).unwrap(),
            "     Warning the compiler says:\n  a.cpp:1:1: warning: one\n"
        );
        r.message = (1..=25).map(|i| format!("line {i}\n")).collect();
        let w = compiler_warnings(&r, &paint).unwrap();
        assert!(
            w.contains("  line 20\n  … 5 more lines (all of them with --json)\n"),
            "{w}"
        );
        assert!(!w.contains("line 21"), "{w}");
        r.ok = false;
        assert_eq!(
            compiler_warnings(&r, &paint),
            None,
            "a CE shows its message elsewhere"
        );
    }
}
