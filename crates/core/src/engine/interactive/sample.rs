//! Sample `.interaction` files: read, played against the interactor for `judge verify`, and
//! attached to a failing sample's result.

use super::*;

/// One line of a sample `.interaction` file.
#[derive(Debug, Clone, PartialEq)]
pub struct ExchangeLine {
    /// Its line number in the file.
    pub number: usize,
    /// The pass it belongs to (from 1; `---` lines separate the passes of a multi-pass test).
    pub pass: u32,
    pub from: From,
    pub text: String,
}

impl ExchangeLine {
    /// The line as the file has it: `<` or `>` first.
    pub fn marked(&self) -> String {
        match self.from {
            From::Judge => format!("<{}", self.text),
            From::Solution => format!(">{}", self.text),
        }
    }
}

/// A sample `.interaction` file read as its lines; `---` separates the passes of a
/// multi-pass problem. `Err` names the line that is neither.
pub fn read_interaction(path: &Path) -> Result<Vec<ExchangeLine>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut lines = Vec::new();
    let mut pass = 1;
    for (i, line) in text.lines().enumerate() {
        let from = match line.chars().next() {
            Some('<') => From::Judge,
            Some('>') => From::Solution,
            _ if line.trim() == "---" => {
                pass += 1;
                continue;
            }
            _ if line.trim().is_empty() => continue,
            _ => {
                return Err(format!(
                    "{}:{}: a line of an .interaction file starts with `<` (judge to solution), `>` (solution to judge), or is `---` (the next pass)",
                    path.display(),
                    i + 1
                ))
            }
        };
        lines.push(ExchangeLine {
            number: i + 1,
            pass,
            from,
            text: line[1..].to_string(),
        });
    }
    Ok(lines)
}

/// Checks every sample exchange of an interactive problem against its interactor: the judge
/// plays the solution's side from the `>` lines, the interactor must answer the `<` lines and
/// accept. One message per sample that does not hold.
pub fn check_samples(engine: &mut Engine, problem: &Problem, checker: &Checker) -> Vec<String> {
    let Checker::Interactive(interactor) = checker else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for test in &problem.tests {
        let Some(path) = &test.interaction else {
            continue;
        };
        if let Err(why) = replay(engine, problem, interactor, test, path) {
            problems.push(why);
        }
    }
    problems
}

/// Plays a sample's exchange against the interactor, pass by pass: each pass must end with
/// the interactor accepting, and every pass but the last with its `nextpass.in`, the next
/// pass's input.
fn replay(
    engine: &mut Engine,
    problem: &Problem,
    interactor: &Interactor,
    test: &TestCase,
    path: &Path,
) -> Result<(), String> {
    let lines = read_interaction(path)?;
    let passes = lines.last().map_or(1, |l| l.pass);
    let work = engine.fresh_dir("replay").map_err(|e| e.to_string())?;
    let feedback = work.join("feedback");
    let played = std::fs::create_dir(&feedback)
        .map_err(|e| format!("could not create {}: {e}", feedback.display()))
        .and_then(|()| {
            let mut input = absolute(&test.input);
            for pass in 1..=passes {
                let these: Vec<&ExchangeLine> = lines.iter().filter(|l| l.pass == pass).collect();
                let next = feedback.join("nextpass.in");
                let _ = std::fs::remove_file(&next);
                replay_pass(engine, problem, interactor, test, path, &input, &these, &work)?;
                if pass == passes {
                    break;
                }
                let moved = work.join(format!("pass-{}.in", pass + 1));
                std::fs::rename(&next, &moved).map_err(|_| {
                    format!(
                        "{}: pass {pass} of the sample is followed by another, but the interactor wrote no nextpass.in",
                        path.display()
                    )
                })?;
                input = moved;
            }
            Ok(())
        });
    let _ = std::fs::remove_dir_all(&work);
    played
}

/// One pass of [`replay`]: the interactor runs on `input`; the judge says the `>` lines and
/// checks that it hears the `<` lines.
#[allow(clippy::too_many_arguments)]
fn replay_pass(
    engine: &mut Engine,
    problem: &Problem,
    interactor: &Interactor,
    test: &TestCase,
    path: &Path,
    input: &Path,
    lines: &[&ExchangeLine],
    work: &Path,
) -> Result<(), String> {
    let said: String = lines
        .iter()
        .filter(|l| l.from == From::Solution)
        .map(|l| format!("{}\n", l.text))
        .collect();
    let feedback = work.join("feedback");
    let answer = absolute(&test.answer);
    let args = interactor_args(interactor, problem, test, input, &answer, &feedback);
    let mut readable = interactor.artifact.readable.clone();
    readable.extend([input.to_path_buf(), answer]);
    let spec = RunSpec {
        program: interactor.artifact.program.clone(),
        args,
        env: build::base_env(&feedback),
        workdir: feedback.clone(),
        scratch_workdir: false,
        stdin: None,
        stdout: work.join("interactor.out"),
        stderr: work.join("interactor.err"),
        readable,
        limits: interactor_limits(problem),
    };
    let outcome = engine
        .sandbox
        .converse(&spec, said.as_bytes(), 1 << 20)
        .map(|heard| (heard.outcome, heard.said));
    let message = build::read_capped(&feedback.join("judgemessage.txt"), 300);
    let stderr = build::read_capped(&work.join("interactor.err"), 300);
    let (outcome, got) =
        outcome.map_err(|e| format!("{}: could not replay the sample: {e}", path.display()))?;
    let got = String::from_utf8_lossy(&got).into_owned();
    let mut heard = got.lines();
    for line in lines.iter().filter(|l| l.from == From::Judge) {
        let (number, text) = (line.number, &line.text);
        match heard.next() {
            Some(line) if line.trim_end() == text.trim_end() => {}
            Some(line) => {
                return Err(format!(
                    "{}:{number}: the interactor said `{}` where the sample says `{}`",
                    path.display(),
                    line.trim_end(),
                    text.trim_end()
                ))
            }
            None => {
                return Err(format!(
                    "{}:{number}: the interactor said nothing more where the sample says `{}`",
                    path.display(),
                    text.trim_end()
                ))
            }
        }
    }
    if !interactor_accepts(&outcome, interactor.protocol) {
        let why = first_line(&message)
            .or_else(|| first_line(&stderr))
            .unwrap_or_default();
        return Err(format!(
            "{}: the interactor does not accept the sample exchange ({}){}",
            path.display(),
            termination_text(outcome.termination),
            if why.is_empty() {
                String::new()
            } else {
                format!(": {why}")
            }
        ));
    }
    Ok(())
}

/// A failing sample's exchange from its `.interaction` file, for the report.
pub(super) fn attach_sample(result: &mut TestResult, test: &TestCase) {
    let Some(path) = test
        .interaction
        .as_ref()
        .filter(|_| result.verdict != Verdict::AC)
    else {
        return;
    };
    let mut sample: Vec<String> = match read_interaction(path) {
        Ok(lines) => marked_lines(&lines),
        Err(why) => vec![why],
    };
    if sample.len() > TRANSCRIPT_LINES {
        let more = sample.len() - TRANSCRIPT_LINES;
        sample.truncate(TRANSCRIPT_LINES);
        sample.push(format!("… {more} more lines"));
    }
    result
        .transcript
        .get_or_insert_with(Default::default)
        .sample = sample;
}

/// A sample's lines as the file has them, `---` between passes.
pub fn marked_lines(lines: &[ExchangeLine]) -> Vec<String> {
    let mut marked = Vec::new();
    let mut pass = lines.first().map_or(1, |l| l.pass);
    for line in lines {
        if line.pass != pass {
            marked.push("---".to_string());
            pass = line.pass;
        }
        marked.push(line.marked());
    }
    marked
}
