//! The human report of `judge gen` and `judge stress`: their steps as status lines on stderr,
//! what `gen` wrote and the counterexample `stress` found on stdout.

use super::human::{Out, StatusLines};
use judge_model::event::{Event, Reporter};
use judge_model::finding::Counterexample;
use judge_model::paint::Paint;
use judge_model::Verdict;
use std::io::Write;

pub struct SetterLines {
    out: Out,
    err: StatusLines,
}

impl SetterLines {
    /// `status_colour` for stderr's verbs.
    pub fn new(out: Out, err: Out, status_colour: bool) -> SetterLines {
        SetterLines {
            out,
            err: StatusLines::new(err, Paint { on: status_colour }, false),
        }
    }
}

impl Reporter for SetterLines {
    fn event(&mut self, e: &Event) {
        let text = match e {
            Event::Step { verb, what, .. } => {
                self.err.status(verb, what);
                return;
            }
            Event::Warning { message, .. } => {
                self.err.write(&format!("warning: {message}\n"));
                return;
            }
            Event::Note { message, .. } => {
                self.err.write(&format!("note: {message}\n"));
                return;
            }
            Event::Generated { dir, summary, .. } => {
                let mut s = match &summary.files_written {
                    None => format!(
                        "{dir}: {} input(s) and {} answer(s) written, {} unchanged, {} up to date (cached)\n",
                        summary.inputs_written.len(),
                        summary.answers_written.len(),
                        summary.unchanged,
                        summary.cached
                    ),
                    Some(files) => format!("{dir}: {} file(s) written\n", files.len()),
                };
                for name in summary.files_written.iter().flatten() {
                    s.push_str(&format!("  wrote {name}\n"));
                }
                for name in &summary.inputs_written {
                    s.push_str(&format!("  wrote tests/{name}.in\n"));
                }
                for name in &summary.answers_written {
                    s.push_str(&format!("  wrote tests/{name}.ans\n"));
                }
                s
            }
            Event::StressFinished {
                solution,
                seconds,
                found,
                saved,
                ..
            } => stress_text(solution, *seconds, found.as_ref(), saved),
            _ => return,
        };
        let _ = write!(self.out, "{text}");
        let _ = self.out.flush();
    }
}

fn stress_text(
    solution: &str,
    seconds: f64,
    found: Option<&Counterexample>,
    saved: &[String],
) -> String {
    let Some(c) = found else {
        return format!("no failing input found in {seconds} s\n");
    };
    if c.verdict == Verdict::CE {
        return format!("{solution} does not compile:\n{}\n", c.message);
    }
    let mut s = format!(
        "{} ({}) after {} input(s); shrunk in {} step(s) to {} byte(s):\n",
        c.verdict.code(),
        c.verdict.long_name(),
        c.tries,
        c.shrink_steps,
        c.input.len()
    );
    s.push_str(&format!("--- input\n{}\n", show(&c.input)));
    s.push_str(&format!("--- expected (reference)\n{}\n", show(&c.answer)));
    s.push_str(&format!("--- {solution}\n{}\n", show(&c.output)));
    if !c.message.is_empty() {
        s.push_str(&format!(
            "--- verdict\n{}: {}\n",
            c.verdict.code(),
            c.message
        ));
    }
    if let [input, answer] = saved {
        s.push_str(&format!("saved {input} and {answer}\n"));
    }
    s
}

fn show(bytes: &[u8]) -> String {
    const CAP: usize = 4000;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(CAP)]).into_owned();
    let text = text.trim_end_matches('\n').to_string();
    if bytes.len() > CAP {
        format!("{text}\n[… {} more bytes]", bytes.len() - CAP)
    } else {
        text
    }
}
