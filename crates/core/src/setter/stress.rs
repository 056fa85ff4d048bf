//! `judge stress`: feed a solution fresh generated inputs until it disagrees with the reference,
//! then shrink the input — smaller sizes and seeds first, then dropping lines and tokens, then
//! making each integer smaller (toward 0, by bisection) — keeping only candidates that the
//! validator accepts and that still fail.

use super::jury::NotValid;
use super::{
    generator_limits, generator_time_hint, generator_time_limit, run_for_output, Builds,
    SetterError,
};
use crate::build::Artifact;
use crate::engine::{solution_limits, Checker, Engine};
use crate::jobs::spread;
use crate::package::{recipe, Problem, TestCase};
use judge_model::Counterexample;
use judge_model::Verdict;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Seeds tried per size while shrinking by size.
const SEEDS_PER_SIZE: u64 = 12;
/// Generated inputs per size step while searching.
const TRIES_PER_SIZE: u64 = 5;

pub struct StressOptions {
    /// Generator arguments with `{seed}` and optionally `{size}`; the first word may name the
    /// generator file inside the package.
    pub gen: String,
    pub time_budget: Duration,
    pub against: Option<PathBuf>,
    /// Overrides `generator_time_limit` of tests.toml.
    pub generator_time_limit: Option<Duration>,
}

/// The outcome of one candidate input.
enum Trial {
    Pass,
    /// The validator (or the reference) rejects the input.
    Invalid,
    Fail {
        answer: Vec<u8>,
        verdict: Verdict,
        message: String,
    },
}

/// A failing input the search found, with the seed and the size that generated it.
type Failing = (Vec<u8>, u64, u64);

struct Stress<'a> {
    problem: &'a Problem,
    checker: Checker,
    /// The validator's source and build.
    validator: Option<(PathBuf, Artifact)>,
    reference_path: PathBuf,
    reference: Artifact,
    solution: Artifact,
    generator_path: PathBuf,
    generator: Artifact,
    generator_limit: Duration,
    template: Vec<String>,
    /// Shrinking makes inputs the validator may not even parse: a crash of the validator on
    /// them only means "not a candidate". While searching, it is a judge error.
    shrinking: bool,
}

/// Searches for a failing input. `Ok(None)`: none found within the time budget.
pub fn stress(
    engines: &mut [&mut Engine],
    problem: &Problem,
    source: &Path,
    options: &StressOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Option<Counterexample>, SetterError> {
    if problem.interactor.is_some() {
        return Err(SetterError::Other(format!(
            "{} is interactive: `judge stress` compares the outputs of batch solutions and cannot run an interactor yet\n  hint: judge the solutions with `judge run` or `judge verify`",
            problem.slug
        )));
    }
    let mut s = match Stress::prepare(engines[0], problem, source, options, progress)? {
        Ok(s) => s,
        Err(not_built) => return Ok(Some(not_built)),
    };
    let uses_size = s.template.iter().any(|w| w.contains("{size}"));
    let (found, tries) = s.search(engines, options.time_budget, progress)?;
    let Some((mut input, seed, size)) = found else {
        progress(&format!("no failure in {tries} input(s)"));
        return Ok(None);
    };
    progress(&format!(
        "input {tries} fails (seed {seed}, size {size}); shrinking"
    ));
    s.shrinking = true;
    let engine: &mut Engine = engines[0];
    let mut steps = 0;
    if uses_size {
        steps += s.shrink_by_size(engine, &mut input, size, progress)?;
    }
    steps += s.shrink_by(engine, &mut input, Unit::Line, progress)?;
    steps += s.shrink_by(engine, &mut input, Unit::Token, progress)?;
    steps += s.shrink_numbers(engine, &mut input, progress)?;
    let Trial::Fail {
        answer,
        verdict,
        message,
    } = s.trial(engine, &input)?
    else {
        return Err(SetterError::Other(
            "the failure did not reproduce (is the solution deterministic?)".into(),
        ));
    };
    let output = s.output_of_solution(engine, &input);
    Ok(Some(Counterexample {
        input,
        answer,
        output,
        verdict,
        message,
        tries,
        shrink_steps: steps,
    }))
}

impl<'a> Stress<'a> {
    /// Builds the generator, the validator, the reference and the solution, and prepares the
    /// checker. A solution that does not compile is its own counterexample (`Ok(Err(CE))`).
    fn prepare(
        engine: &mut Engine,
        problem: &'a Problem,
        source: &Path,
        options: &StressOptions,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Result<Stress<'a>, Counterexample>, SetterError> {
        let (generator_path, template) = resolve_generator(engine, problem, &options.gen)?;
        let recipe = recipe::load_recipe(&problem.dir)?;
        let generator_limit = generator_time_limit(options.generator_time_limit, &recipe);
        let builds = Builds::default();
        let reference_path = match &options.against {
            Some(p) => p.clone(),
            None => super::reference_of(problem)?,
        };
        progress(&format!("building {}", generator_path.display()));
        let generator = builds.get(engine, &generator_path, "generator")?;
        let validator = match &problem.validator {
            Some(v) => Some((v.clone(), builds.get(engine, v, "validator")?)),
            None => None,
        };
        progress(&format!(
            "building the reference {}",
            reference_path.display()
        ));
        let reference = builds.get(engine, &reference_path, "reference solution")?;
        progress(&format!("building {}", source.display()));
        let solution = match engine.build(source)? {
            (Some(a), _) => a,
            (None, report) => {
                return Ok(Err(Counterexample {
                    input: Vec::new(),
                    answer: Vec::new(),
                    output: Vec::new(),
                    verdict: Verdict::CE,
                    message: report.message,
                    tries: 0,
                    shrink_steps: 0,
                }))
            }
        };
        let checker = engine.prepare_checker(problem)?;
        Ok(Ok(Stress {
            problem,
            checker,
            validator,
            reference_path,
            reference,
            solution,
            generator_path,
            generator,
            generator_limit,
            template,
            shrinking: false,
        }))
    }

    /// Tries seeds 1, 2, … (sizes growing every `TRIES_PER_SIZE`) until one fails or the time
    /// budget is spent: the failing input with its seed and size, if any, and the inputs tried.
    fn search(
        &self,
        engines: &mut [&mut Engine],
        time_budget: Duration,
        progress: &mut dyn FnMut(&str),
    ) -> Result<(Option<Failing>, u64), SetterError> {
        let start = Instant::now();
        let mut tries = 0u64;
        let mut found = None;
        // With several jobs, seeds go out in batches; the first failing seed in order wins, so
        // the counterexample is the one a single job would find.
        let batch = if engines.len() > 1 {
            engines.len() as u64 * 2
        } else {
            1
        };
        while found.is_none() && start.elapsed() < time_budget {
            let first = tries;
            if (first + 1..=first + batch).any(|t| t % 10 == 1) {
                progress(&format!(
                    "tried {first} input(s), size {}",
                    1 + first / TRIES_PER_SIZE
                ));
            }
            let failed_at = AtomicUsize::new(usize::MAX);
            let results = spread(
                engines,
                batch as usize,
                &|i| i > failed_at.load(Ordering::SeqCst),
                &|engine: &mut Engine, i: usize| {
                    let n = first + i as u64;
                    let (seed, size) = (n + 1, 1 + n / TRIES_PER_SIZE);
                    let r = self
                        .generate(engine, seed, size)
                        .and_then(|input| Ok((self.trial(engine, &input)?, input, seed, size)));
                    if !matches!(r, Ok((Trial::Pass | Trial::Invalid, ..))) {
                        failed_at.fetch_min(i, Ordering::SeqCst);
                    }
                    r
                },
            );
            for r in results {
                let Some(r) = r else { break };
                tries += 1;
                if let (Trial::Fail { .. }, input, seed, size) = r? {
                    found = Some((input, seed, size));
                    break;
                }
            }
        }
        Ok((found, tries))
    }

    /// Tries the smaller sizes (from 1, `SEEDS_PER_SIZE` seeds each) of a failure found at
    /// `size`: the first that fails too replaces `input`. Returns the steps taken (0 or 1).
    fn shrink_by_size(
        &self,
        engine: &mut Engine,
        input: &mut Vec<u8>,
        size: u64,
        progress: &mut dyn FnMut(&str),
    ) -> Result<u64, SetterError> {
        for smaller in 1..size {
            for seed in 1..=SEEDS_PER_SIZE {
                let candidate = self.generate(engine, seed, smaller)?;
                if candidate.len() < input.len() || smaller < size {
                    if let Trial::Fail { .. } = self.trial(engine, &candidate)? {
                        progress(&format!("size {smaller}, seed {seed} fails too"));
                        *input = candidate;
                        return Ok(1);
                    }
                }
            }
        }
        Ok(0)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Unit {
    Line,
    Token,
}

/// A token that is an integer as a program prints one (`0`, `-12`, `345`; not `007`, `+1`,
/// `1e9`), so that writing another number in its place keeps the input's form.
fn integer(token: &str) -> Option<i128> {
    let digits = token.strip_prefix('-').unwrap_or(token);
    let plain = !digits.is_empty()
        && digits.len() <= 30
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && token != "-0";
    plain.then(|| token.parse().ok()).flatten()
}

impl Stress<'_> {
    fn generate(&self, engine: &mut Engine, seed: u64, size: u64) -> Result<Vec<u8>, SetterError> {
        let args: Vec<String> = self
            .template
            .iter()
            .map(|w| {
                w.replace("{seed}", &seed.to_string())
                    .replace("{size}", &size.to_string())
            })
            .collect();
        run_for_output(
            engine,
            &self.generator,
            &self.generator_path,
            &args,
            None,
            generator_limits(self.generator_limit),
        )
        .map_err(|f| {
            let hint = if f.timed_out {
                generator_time_hint(self.generator_limit)
            } else {
                String::new()
            };
            SetterError::Other(format!(
                "{} {}: {}{hint}",
                self.generator_path.display(),
                args.join(" "),
                f.render("the generator")
            ))
        })
    }

    fn trial(&self, engine: &mut Engine, input: &[u8]) -> Result<Trial, SetterError> {
        let dir = engine.fresh_dir("stress")?;
        let test = TestCase {
            name: "stress".into(),
            input: dir.join("input"),
            answer: dir.join("answer"),
            sample: false,
            ..TestCase::default()
        };
        let write = |p: &Path, b: &[u8]| {
            std::fs::write(p, b).map_err(|e| SetterError::Other(format!("{}: {e}", p.display())))
        };
        write(&test.input, input)?;
        let result = (|| {
            if let Some((source, v)) = &self.validator {
                match crate::setter::jury::validate_input(engine, v, source, &test.input) {
                    Ok(()) => {}
                    Err(NotValid::Rejected(_)) => return Ok(Trial::Invalid),
                    Err(NotValid::Crashed(_)) if self.shrinking => return Ok(Trial::Invalid),
                    Err(NotValid::Crashed(f)) => {
                        let name = source.file_name().unwrap_or_default().to_string_lossy();
                        return Err(SetterError::Other(format!(
                            "on a generated input, {}\n  hint: fix the validator: {}",
                            f.render(&name),
                            crate::setter::jury::VALIDATOR_RULE
                        )));
                    }
                }
            }
            let answer = match run_for_output(
                engine,
                &self.reference,
                &self.reference_path,
                &[],
                Some(&test.input),
                solution_limits(self.problem),
            ) {
                Ok(a) => a,
                // Without a validator, an input the reference cannot handle is not a counterexample.
                Err(_) if self.validator.is_none() => return Ok(Trial::Invalid),
                Err(f) => {
                    return Err(SetterError::Other(format!(
                        "{}: on an input the validator accepts, {}",
                        self.reference_path.display(),
                        f.render("the reference solution")
                    )))
                }
            };
            write(&test.answer, &answer)?;
            let (r, _) = engine.run_test_honestly(
                self.problem,
                &self.checker,
                &self.solution,
                &test,
                &|| true,
            );
            Ok(match r.verdict {
                Verdict::AC => Trial::Pass,
                Verdict::JE => {
                    return Err(SetterError::Other(format!("judge error: {}", r.message)))
                }
                verdict => Trial::Fail {
                    answer,
                    verdict,
                    message: r.message,
                },
            })
        })();
        let _ = std::fs::remove_dir_all(&dir);
        result
    }

    /// Greedy delta debugging: drop chunks of lines (or single tokens) while the input still fails.
    fn shrink_by(
        &self,
        engine: &mut Engine,
        input: &mut Vec<u8>,
        unit: Unit,
        progress: &mut dyn FnMut(&str),
    ) -> Result<u64, SetterError> {
        let mut steps = 0;
        let mut lines = tokens(input);
        // Inputs whose spacing matters (e.g. grids with spaces) are only shrunk by whole lines.
        if unit == Unit::Token && render(&lines) != *input {
            return Ok(0);
        }
        loop {
            let mut improved = false;
            match unit {
                Unit::Line => {
                    let mut chunk = (lines.len() / 2).max(1);
                    while chunk >= 1 {
                        let mut i = 0;
                        while i < lines.len() {
                            let end = (i + chunk).min(lines.len());
                            let mut candidate = lines.clone();
                            candidate.drain(i..end);
                            if candidate.is_empty() {
                                i += chunk;
                                continue;
                            }
                            if let Trial::Fail { .. } = self.trial(engine, &render(&candidate))? {
                                lines = candidate;
                                improved = true;
                                steps += 1;
                                progress(&format!("{} line(s) left", lines.len()));
                            } else {
                                i += chunk;
                            }
                        }
                        if chunk == 1 {
                            break;
                        }
                        chunk /= 2;
                    }
                }
                Unit::Token => {
                    let mut li = 0;
                    while li < lines.len() {
                        let mut ti = 0;
                        while ti < lines[li].len() {
                            let mut candidate = lines.clone();
                            candidate[li].remove(ti);
                            if let Trial::Fail { .. } = self.trial(engine, &render(&candidate))? {
                                lines = candidate;
                                improved = true;
                                steps += 1;
                                progress(&format!(
                                    "{} token(s) left",
                                    lines.iter().map(Vec::len).sum::<usize>()
                                ));
                            } else {
                                ti += 1;
                            }
                        }
                        li += 1;
                    }
                }
            }
            if !improved {
                break;
            }
        }
        if steps > 0 {
            *input = render(&lines);
        }
        Ok(steps)
    }

    /// Makes each integer token smaller while the input still fails: 0 first, else the
    /// smallest magnitude (sign kept) that still fails, by bisection between a value that does
    /// not (0, or the validator refusing it) and one that does. A 9-digit number takes about 30
    /// trials; the validator keeps every candidate inside the problem's bounds.
    fn shrink_numbers(
        &self,
        engine: &mut Engine,
        input: &mut Vec<u8>,
        progress: &mut dyn FnMut(&str),
    ) -> Result<u64, SetterError> {
        let mut lines = tokens(input);
        // As for tokens: an input whose spacing matters is left as it is.
        if render(&lines) != *input {
            return Ok(0);
        }
        let mut steps = 0;
        for li in 0..lines.len() {
            for ti in 0..lines[li].len() {
                let Some(value) = integer(&lines[li][ti]) else {
                    continue;
                };
                let (negative, mut failing) = (value < 0, value.unsigned_abs());
                let mut fails = |magnitude: u128| -> Result<bool, SetterError> {
                    let mut candidate = lines.clone();
                    candidate[li][ti] = match negative && magnitude != 0 {
                        true => format!("-{magnitude}"),
                        false => magnitude.to_string(),
                    };
                    Ok(matches!(
                        self.trial(engine, &render(&candidate))?,
                        Trial::Fail { .. }
                    ))
                };
                // `passing` never fails (or is not valid); `failing` does.
                let mut passing = 0;
                if failing == 0 || fails(0)? {
                    failing = 0;
                } else {
                    while failing - passing > 1 {
                        let middle = passing + (failing - passing) / 2;
                        if fails(middle)? {
                            failing = middle;
                        } else {
                            passing = middle;
                        }
                    }
                }
                if failing != value.unsigned_abs() {
                    let smaller = match negative && failing != 0 {
                        true => format!("-{failing}"),
                        false => failing.to_string(),
                    };
                    progress(&format!("{} made {smaller}", lines[li][ti]));
                    lines[li][ti] = smaller;
                    steps += 1;
                }
            }
        }
        if steps > 0 {
            *input = render(&lines);
        }
        Ok(steps)
    }

    fn output_of_solution(&self, engine: &mut Engine, input: &[u8]) -> Vec<u8> {
        let Ok(dir) = engine.fresh_dir("stress") else {
            return Vec::new();
        };
        let path = dir.join("input");
        if std::fs::write(&path, input).is_err() {
            return Vec::new();
        }
        let limits = solution_limits(self.problem);
        let keep = crate::engine::Keep {
            stdout: Some(4096),
            stderr: 0,
        };
        let out = match engine.run_jury(&self.solution, &[], Some(&path), &[], limits, keep) {
            Ok(run) => run.stdout,
            Err(_) => Vec::new(),
        };
        let _ = std::fs::remove_dir_all(&dir);
        out
    }
}

/// Picks the generator: the first word of `--gen` when it names a source file (in the package, or
/// as given), else the only generator named in tests.toml, else `generator.*` in the package. A
/// first word that looks like a source file (a path, or a known extension) but does not exist is
/// an error naming it.
fn resolve_generator(
    engine: &Engine,
    problem: &Problem,
    gen: &str,
) -> Result<(PathBuf, Vec<String>), SetterError> {
    let words: Vec<String> = gen.split_whitespace().map(str::to_string).collect();
    if !gen.contains("{seed}") {
        return Err(SetterError::Other(format!(
            "--gen \"{gen}\" has no {{seed}}\n  hint: every input must come from a fresh seed, e.g. --gen \"{{seed}} {{size}}\""
        )));
    }
    if let Some(first) = words.first().filter(|w| !w.contains('{')) {
        let in_package = problem.dir.join(first);
        if in_package.is_file() {
            return Ok((in_package, words[1..].to_vec()));
        }
        let as_given = PathBuf::from(first);
        if as_given.is_file() {
            return Ok((as_given, words[1..].to_vec()));
        }
        let looks_like_source =
            first.contains('/') || engine.languages.for_source(&as_given).is_ok();
        if looks_like_source {
            return Err(SetterError::Other(format!(
                "--gen \"{gen}\": the generator `{first}` does not exist (looked for {} and {})\n  hint: start --gen with the generator's path inside the package, e.g. --gen \"gen/random.py {{seed}} {{size}}\"",
                in_package.display(),
                as_given.display()
            )));
        }
    }
    let mut named: Vec<PathBuf> = recipe::load_recipe(&problem.dir)?
        .tests
        .into_iter()
        .map(|t| t.generator)
        .collect();
    named.sort();
    named.dedup();
    if named.len() == 1 {
        return Ok((named.remove(0), words));
    }
    let own: Vec<PathBuf> = std::fs::read_dir(&problem.dir)
        .map(|e| e.flatten().map(|e| e.path()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.is_file() && p.file_stem().is_some_and(|s| s == "generator"))
        .collect();
    if own.len() == 1 {
        return Ok((own[0].clone(), words));
    }
    Err(SetterError::Other(format!(
        "{}: cannot tell which generator to use\n  hint: start --gen with the generator's path inside the package, e.g. --gen \"gen/random.py {{seed}} {{size}}\"",
        problem.dir.display()
    )))
}

/// An input as lines of whitespace-separated tokens (what the shrinking works on).
fn tokens(input: &[u8]) -> Vec<Vec<String>> {
    String::from_utf8_lossy(input)
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// Lines of tokens written back: one space between tokens, a newline after each line.
fn render(lines: &[Vec<String>]) -> Vec<u8> {
    let mut s = String::new();
    for l in lines {
        s.push_str(&l.join(" "));
        s.push('\n');
    }
    s.into_bytes()
}

#[cfg(test)]
mod tests;
