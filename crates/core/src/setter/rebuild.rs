//! Tests a package leaves out: a Polygon package without its "full" files holds only the manual
//! tests, and often no answers. The generated inputs come from the package's generators (each
//! test's `cmd`, testlib generators seed themselves from their arguments, so the inputs are
//! Polygon's), the answers from its main solution; both go to the engine's work folder.
//! Polygon writes a package's text files with the line endings of the system it is made for: a
//! package made for Windows has CRLF tests, which a testlib validator built here rejects
//! ("Expected EOLN"); such tests are judged from LF copies, as the Linux package has them.

use super::jury::{self, Failure};
use super::SetterError;
use crate::build::Artifact;
use crate::engine::{checker_limits, Engine};
use crate::package::Problem;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Makes every input and answer the package lacks, and points its tests at them. Returns a note
/// saying what was made (empty when nothing was missing).
pub fn rebuild_missing(
    engine: &mut Engine,
    problem: &mut Problem,
    progress: &mut dyn FnMut(&str, &str),
) -> Result<Vec<String>, SetterError> {
    let mut notes = Vec::new();
    if problem.format == crate::package::Format::Polygon {
        let converted = unix_line_endings(engine, problem)?;
        if converted > 0 {
            notes.push(format!(
                "{converted} test file(s) have Windows line endings (CRLF, a package made for \
                 Windows): judged from copies with LF line endings, as in Polygon's Linux package"
            ));
        }
    }
    notes.extend(make_missing(engine, problem, progress)?);
    Ok(notes)
}

/// Points every CRLF test file of the problem at a copy with LF line endings in the work
/// folder; returns how many files were converted.
fn unix_line_endings(engine: &mut Engine, problem: &mut Problem) -> Result<usize, SetterError> {
    let mut converted = 0;
    let mut dir: Option<PathBuf> = None;
    for i in 0..problem.tests.len() {
        for answer in [false, true] {
            let test = &problem.tests[i];
            let (path, missing) = if answer {
                (&test.answer, test.answer_missing)
            } else {
                (&test.input, test.generate.is_some())
            };
            if missing {
                continue;
            }
            let Ok(bytes) = std::fs::read(path) else {
                // A missing file is the loader's or the judging's error to report.
                continue;
            };
            if !bytes.windows(2).any(|w| w == b"\r\n") {
                continue;
            }
            let dir = match &dir {
                Some(d) => d.clone(),
                None => dir.insert(engine.fresh_dir("lf")?).clone(),
            };
            let name = format!("{}{}", test.name, if answer { ".a" } else { "" });
            let copy = dir.join(name);
            std::fs::write(&copy, crlf_to_lf(&bytes))
                .map_err(|e| SetterError::Other(format!("cannot write {}: {e}", copy.display())))?;
            let test = &mut problem.tests[i];
            if answer {
                test.answer = copy;
            } else {
                test.input = copy;
            }
            converted += 1;
        }
    }
    Ok(converted)
}

/// Every CR that ends a line removed; a lone CR is kept.
fn crlf_to_lf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            continue;
        }
        out.push(b);
    }
    out
}

/// The inputs and answers the package lacks (see [`rebuild_missing`]).
fn make_missing(
    engine: &mut Engine,
    problem: &mut Problem,
    progress: &mut dyn FnMut(&str, &str),
) -> Result<Vec<String>, SetterError> {
    let inputs = problem
        .tests
        .iter()
        .filter(|t| t.generate.is_some())
        .count();
    let answers = problem.tests.iter().filter(|t| t.answer_missing).count();
    if inputs == 0 && answers == 0 {
        return Ok(Vec::new());
    }
    if answers > 0 && problem.interactor.is_some() {
        return Err(SetterError::Other(format!(
            "{}: {answers} test(s) have no answer file, and the judge cannot make them for an interactive problem (the main solution would have to talk to the interactor)\n  hint: download the full package (it holds every answer), or write the answer files",
            problem.slug
        )));
    }
    let out_dir = engine.fresh_dir("tests")?;
    let rel = |p: &Path| {
        p.strip_prefix(&problem.dir)
            .unwrap_or(p)
            .display()
            .to_string()
    };
    let mut built: BTreeMap<String, Artifact> = BTreeMap::new();
    let count = problem.tests.len();
    for i in 0..count {
        let Some(words) = problem.tests[i].generate.clone() else {
            continue;
        };
        let name = problem.tests[i].name.clone();
        progress("Generating", &format!("{name} ({}/{count})", i + 1));
        let program = problem.rebuild.generators[&words[0]].clone();
        if !built.contains_key(&words[0]) {
            let artifact = match engine.build_program(&program)? {
                (Some(a), _) => a,
                (None, report) => {
                    return Err(SetterError::Other(format!(
                        "{}: the generator does not compile:\n{}",
                        program.source.display(),
                        report.message
                    )))
                }
            };
            built.insert(words[0].clone(), artifact);
        }
        let args: Vec<OsString> = words[1..].iter().map(OsString::from).collect();
        let limits = checker_limits();
        let (run, out, err) =
            engine.execute(&built[&words[0]], &args, None, &[], limits.clone())?;
        let stderr = crate::engine::read_tail(&err, jury::STDERR_TAIL);
        let failed = jury::failure(&run, &limits, &stderr).or_else(|| {
            (run.termination != judge_sandbox::Termination::Exited(0)).then(|| Failure {
                what: format!(
                    "failed ({})",
                    judge_sandbox::termination_text(run.termination)
                ),
                tail: Vec::new(),
                timed_out: false,
            })
        });
        if let Some(f) = failed {
            engine.recycle(out, err);
            return Err(SetterError::Other(format!(
                "test {name} (`{}`): {}",
                words.join(" "),
                f.render(&rel(&program.source))
            )));
        }
        let input = out_dir.join(&name);
        copy(&out, &input)?;
        engine.recycle(out, err);
        let test = &mut problem.tests[i];
        test.input = input;
        test.generate = None;
    }
    if answers > 0 {
        let main = problem
            .rebuild
            .main
            .clone()
            .expect("set with answer_missing");
        let artifact = match engine.build(&main)? {
            (Some(a), _) => a,
            (None, report) => {
                return Err(SetterError::Other(format!(
                    "{}: the main solution does not compile (it makes the answers):\n{}",
                    main.display(),
                    report.message
                )))
            }
        };
        for i in 0..count {
            if !problem.tests[i].answer_missing {
                continue;
            }
            let name = problem.tests[i].name.clone();
            progress("Answering", &format!("{name} ({}/{count})", i + 1));
            let answer = out_dir.join(format!("{name}.a"));
            answer_with_main(engine, problem, &artifact, i, &answer).map_err(|why| {
                SetterError::Other(format!(
                    "test {name}: the main solution {} {why}",
                    rel(&main)
                ))
            })?;
            let test = &mut problem.tests[i];
            test.answer = answer;
            test.answer_missing = false;
        }
    }
    let mut made = Vec::new();
    if inputs > 0 {
        let names: Vec<&String> = built.keys().collect();
        made.push(format!(
            "{inputs} input(s) with the generator(s) {}",
            names
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if answers > 0 {
        made.push(format!(
            "{answers} answer(s) with the main solution {}",
            rel(problem.rebuild.main.as_deref().unwrap_or(Path::new("")))
        ));
    }
    Ok(vec![format!(
        "the package lacks tests: made {} (in the work folder; the package is not written)",
        made.join(" and ")
    )])
}

fn copy(from: &Path, to: &Path) -> Result<(), SetterError> {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| SetterError::Other(format!("cannot write {}: {e}", to.display())))
}

/// Runs the main solution on test `i` (through its input and output files if the problem has
/// them) and writes its output to `answer`. `Err` says how it failed.
fn answer_with_main(
    engine: &mut Engine,
    problem: &Problem,
    main: &Artifact,
    i: usize,
    answer: &PathBuf,
) -> Result<(), String> {
    let test = &problem.tests[i];
    let limits = checker_limits();
    let files = problem.io.input.is_some() || problem.io.output.is_some();
    let host = if files {
        let dir = engine.fresh_dir("answer").map_err(|e| e.to_string())?;
        if let Some(name) = &problem.io.input {
            std::fs::copy(&test.input, dir.join(name)).map_err(|e| e.to_string())?;
        }
        Some(dir)
    } else {
        None
    };
    let stdin = problem.io.input.is_none().then_some(test.input.as_path());
    let (run, out, err) = engine
        .execute_in(main, &[], stdin, &[], limits.clone(), host.as_deref())
        .map_err(|e| format!("could not be run: {e}"))?;
    let stderr = crate::engine::read_tail(&err, jury::STDERR_TAIL);
    let failed = jury::failure(&run, &limits, &stderr).or_else(|| {
        (run.termination != judge_sandbox::Termination::Exited(0)).then(|| Failure {
            what: format!(
                "failed ({})",
                judge_sandbox::termination_text(run.termination)
            ),
            tail: Vec::new(),
            timed_out: false,
        })
    });
    let produced = match (&problem.io.output, &host) {
        (Some(name), Some(dir)) => dir.join(name),
        _ => out.clone(),
    };
    let result = match failed {
        Some(f) => Err(f.render("")),
        None if !produced.is_file() => Err("wrote no output file".to_string()),
        None => std::fs::copy(&produced, answer)
            .map(|_| ())
            .map_err(|e| format!("output could not be kept: {e}")),
    };
    engine.recycle(out, err);
    if let Some(dir) = host {
        let _ = std::fs::remove_dir_all(dir);
    }
    result
}

/// `judge gen` on a Polygon package: makes the inputs and answers it lacks and writes them where
/// its path patterns put them. Returns the files written, relative to the package.
pub fn write_missing(
    engine: &mut Engine,
    dir: &Path,
    progress: &mut dyn FnMut(&str, &str),
) -> Result<Vec<String>, SetterError> {
    let mut problem = Problem::load(dir)?;
    let targets: Vec<(PathBuf, PathBuf, bool, bool)> = problem
        .tests
        .iter()
        .map(|t| {
            (
                t.input.clone(),
                t.answer.clone(),
                t.generate.is_some(),
                t.answer_missing,
            )
        })
        .collect();
    rebuild_missing(engine, &mut problem, progress)?;
    let mut written = Vec::new();
    for (test, (input, answer, new_input, new_answer)) in problem.tests.iter().zip(targets) {
        for (made, from, to) in [
            (new_input, &test.input, input),
            (new_answer, &test.answer, answer),
        ] {
            if !made {
                continue;
            }
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| {
                    SetterError::Other(format!("cannot create {}: {e}", parent.display()))
                })?;
            }
            copy(from, &to)?;
            written.push(to.strip_prefix(dir).unwrap_or(&to).display().to_string());
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::crlf_to_lf;

    #[test]
    fn crlf_line_ends_become_lf_and_a_lone_cr_stays() {
        assert_eq!(crlf_to_lf(b"3\r\n1 2\r\n"), b"3\n1 2\n");
        assert_eq!(crlf_to_lf(b"a\rb\r\r\n"), b"a\rb\r\n");
        assert_eq!(crlf_to_lf(b"no newline"), b"no newline");
    }
}
