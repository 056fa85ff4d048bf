//! A package's own grader (Kattis legacy `grading: custom`): the program in `graders/` that
//! makes a group's result from its items' results. Its protocol lives here, apart from running
//! it: each item is a line `VERDICT SCORE` on the grader's stdin (`AC`, `WA`, `TLE`, `RTE`,
//! `JE`), the grader's `grader_flags` are its arguments, and it prints one line in the same
//! form and exits 0. Anything else (a crash, another exit code, no line, two lines, an unknown
//! verdict, a score that is not a number) is a judge error naming the grader: the result of a
//! group is never made up.

use judge_model::Verdict;

/// Runs the package's grader: its stdout for `input` on its stdin with `flags` as arguments,
/// or why it failed (a crash, an exit code other than 0, a limit: the message names the
/// grader). The engine runs it in the sandbox; tests give a closure.
pub trait Grader {
    fn run(&mut self, flags: &[String], input: &str) -> Result<String, String>;
    /// How messages name it.
    fn who(&self) -> String {
        "the grader".into()
    }
}

impl<F: FnMut(&[String], &str) -> Result<String, String>> Grader for F {
    fn run(&mut self, flags: &[String], input: &str) -> Result<String, String> {
        self(flags, input)
    }
}

/// Where no grader was built (a scoring evaluated without the engine): a custom-graded group
/// is a judge error saying so.
pub struct NoGrader;

impl Grader for NoGrader {
    fn run(&mut self, _: &[String], _: &str) -> Result<String, String> {
        Err("the package's custom grader was not built".into())
    }
}

/// The code a verdict has in a grader's input (the legacy specification's codes; a memory or
/// output limit is a run-time error there, a presentation error a wrong answer).
pub fn code(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::AC => "AC",
        Verdict::WA | Verdict::PE => "WA",
        Verdict::TLE => "TLE",
        Verdict::RE | Verdict::MLE | Verdict::OLE | Verdict::CE => "RTE",
        Verdict::JE => "JE",
    }
}

/// The grader's stdin: a line `CODE SCORE` per item.
pub fn input(items: &[(Verdict, f64)]) -> String {
    items
        .iter()
        .map(|(v, s)| format!("{} {}\n", code(*v), s))
        .collect()
}

/// The group's result from the grader's stdout: one line `CODE SCORE`. A code stands for the
/// first item's verdict with that code (a grader passing on an `RTE` that was a memory limit
/// keeps it MLE), else its own. `Err`: what is wrong with the output, to show.
pub fn parse(output: &str, items: &[(Verdict, f64)]) -> Result<(Verdict, f64), String> {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    let shown = || {
        let text: String = output.trim().chars().take(80).collect();
        if text.is_empty() {
            "nothing".to_string()
        } else {
            format!("`{text}`")
        }
    };
    let [line] = lines.as_slice() else {
        return Err(format!(
            "printed {} where one line `VERDICT SCORE` was due (VERDICT one of AC, WA, TLE, RTE, JE)",
            shown()
        ));
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    let [word, score] = words.as_slice() else {
        return Err(format!(
            "printed {} where one line `VERDICT SCORE` was due (VERDICT one of AC, WA, TLE, RTE, JE)",
            shown()
        ));
    };
    let own = match *word {
        "AC" => Verdict::AC,
        "WA" => Verdict::WA,
        "TLE" => Verdict::TLE,
        "RTE" => Verdict::RE,
        "JE" => Verdict::JE,
        _ => {
            return Err(format!(
                "printed the verdict `{word}`, which is none of AC, WA, TLE, RTE, JE"
            ))
        }
    };
    let score: f64 = match score.parse::<f64>() {
        Ok(s) if s.is_finite() => s,
        _ => {
            return Err(format!(
                "printed the score `{score}`, which is not a number"
            ))
        }
    };
    let verdict = items
        .iter()
        .map(|(v, _)| *v)
        .find(|v| code(*v) == *word)
        .unwrap_or(own);
    Ok((verdict, score))
}

#[cfg(test)]
mod tests {
    use super::*;
    use judge_model::Verdict::{AC, MLE, PE, RE, TLE, WA};

    #[test]
    fn each_item_is_a_line_with_the_specifications_code() {
        let items = [(AC, 1.0), (PE, 0.0), (MLE, 0.5), (TLE, 0.0), (WA, 2.25)];
        assert_eq!(input(&items), "AC 1\nWA 0\nRTE 0.5\nTLE 0\nWA 2.25\n");
    }

    #[test]
    fn the_output_is_one_line_and_a_code_stands_for_the_first_item_with_it() {
        let items = [(AC, 1.0), (MLE, 0.0), (RE, 0.0)];
        assert_eq!(parse("AC 7.5\n", &items), Ok((AC, 7.5)));
        assert_eq!(parse("  RTE   0  \n\n", &items), Ok((MLE, 0.0)));
        assert_eq!(parse("WA 3", &items), Ok((WA, 3.0)));
        assert_eq!(parse("JE 0\n", &items), Ok((Verdict::JE, 0.0)));
        assert_eq!(parse("TLE -1\n", &[]), Ok((TLE, -1.0)));
    }

    #[test]
    fn anything_but_one_verdict_and_a_number_is_refused_with_what_was_printed() {
        let err = |out: &str| parse(out, &[(AC, 1.0)]).unwrap_err();
        assert!(
            err("").starts_with("printed nothing where one line"),
            "{}",
            err("")
        );
        assert!(
            err("AC 1\nAC 2\n").contains("`AC 1\nAC 2`"),
            "{}",
            err("AC 1\nAC 2\n")
        );
        assert!(err("AC\n").contains("`AC`"));
        assert!(err("AC 1 2\n").contains("one line `VERDICT SCORE`"));
        assert_eq!(
            err("OK 1\n"),
            "printed the verdict `OK`, which is none of AC, WA, TLE, RTE, JE"
        );
        assert_eq!(
            err("AC lots\n"),
            "printed the score `lots`, which is not a number"
        );
        assert_eq!(
            err("AC nan\n"),
            "printed the score `nan`, which is not a number"
        );
    }
}
