//! `judge gen`: (re)build generated inputs from `tests.toml` and every `.ans` from the reference
//! solution. Deterministic; a cache (`.judge-cache.json` in the package) skips work when nothing
//! that shapes it changed — the generator, its arguments, the validator, the reference solution,
//! the limits, the language table — and files are only written when their bytes change. It is
//! atomic: every file is written into a scratch copy of the package's tests (`stage`), which
//! replaces them only when every generator, validator and answer succeeded.

use super::jury::NotValid;
use super::{
    fingerprint, generator_limits, generator_time_hint, generator_time_limit, reference_solution,
    run_for_output, Builds, SetterError,
};
use crate::build::Artifact;
use crate::engine::{solution_limits, Engine};
use crate::package::{recipe, Problem};
use judge_model::finding::Finding;
use judge_model::GenSummary;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

mod stage;

const CACHE_FILE: &str = ".judge-cache.json";

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Cache {
    /// test name -> (recipe fingerprint, fingerprint of the .in written)
    inputs: BTreeMap<String, (String, String)>,
    /// test name -> (reference + input fingerprint, fingerprint of the .ans written)
    answers: BTreeMap<String, (String, String)>,
}

/// Options of `gen` (and of `verify`'s regeneration).
#[derive(Debug, Clone, Default)]
pub struct GenOptions {
    /// Overrides `generator_time_limit` of tests.toml.
    pub generator_time_limit: Option<Duration>,
}

/// One test's part of `gen`: nothing to do, or the bytes to write and the cache key.
enum Made {
    Cached,
    Bytes(Vec<u8>, String),
}

/// Runs `gen` on the package in `dir`. `progress(verb, what)` is called before each step. The
/// tests are spread over the engines; files are written in test order, and the first failing
/// test in that order is the error (what one engine would do).
pub fn generate(
    engines: &mut [&mut Engine],
    dir: &Path,
    options: &GenOptions,
    progress: &(dyn Fn(&str, &str) + Sync),
) -> Result<GenSummary, SetterError> {
    let recipe = recipe::load_recipe(dir)?;
    let limit = generator_time_limit(options.generator_time_limit, &recipe);
    let problem = Problem::load_inputs(dir)?;
    let cache_path = dir.join(CACHE_FILE);
    let mut cache: Cache = std::fs::read(&cache_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut summary = GenSummary::default();
    let builds = Builds::default();
    let reference = reference_solution(dir, &problem.slug);
    builds.prebuild(
        engines,
        problem
            .validator
            .iter()
            .chain(recipe.tests.iter().map(|t| &t.generator))
            .chain(reference.as_ref().ok())
            .map(PathBuf::as_path),
    );
    let validator = match &problem.validator {
        Some(v) => Some((v.clone(), builds.get(engines[0], v, "validator")?)),
        None => None,
    };
    let shared = shared_key(engines[0], dir, problem.validator.as_deref())?;
    // Everything is written into the stage; the package's tests change only at the end.
    let stage = stage::Stage::new(dir).map_err(|e| {
        SetterError::Other(format!(
            "{}: cannot make gen's scratch folder: {e}",
            dir.display()
        ))
    })?;
    let tests_dir = stage.tests();
    let jury = Jury {
        dir,
        tests_dir: &tests_dir,
        limit,
        builds: &builds,
        validator: validator.as_ref(),
        shared: &shared,
        progress,
    };
    write_inputs(engines, &jury, &recipe, &mut cache, &mut summary)?;

    // Answers for every test, generated or hand-made, from the reference solution: the tests
    // of the staged package (its name is the package's).
    let slug = problem.slug;
    let mut problem = Problem::load_inputs(stage.root())?;
    problem.slug = slug;
    write_answers(engines, &jury, &recipe, &problem, &mut cache, &mut summary)?;
    let changed = !(summary.inputs_written.is_empty() && summary.answers_written.is_empty());
    if changed || !dir.join("tests").is_dir() {
        stage.replace().map_err(|e| {
            SetterError::Other(format!(
                "{}: cannot put the new tests in place: {e}",
                dir.join("tests").display()
            ))
        })?;
    }
    let names: Vec<&String> = problem.tests.iter().map(|t| &t.name).collect();
    cache.answers.retain(|k, _| names.contains(&k));
    cache
        .inputs
        .retain(|k, _| recipe.tests.iter().any(|t| &t.name == k));
    let json = serde_json::to_vec_pretty(&cache).expect("cache serializes");
    std::fs::write(&cache_path, json)
        .map_err(|e| SetterError::Other(format!("{}: {e}", cache_path.display())))?;
    Ok(summary)
}

/// What each test's part of `gen` needs besides its engine: the package and its tests folder,
/// the generators' time limit, the jury's builds, the validator (its source and build), the key
/// of what shapes every test, and the progress callback.
struct Jury<'a> {
    dir: &'a Path,
    tests_dir: &'a Path,
    limit: Duration,
    builds: &'a Builds,
    validator: Option<&'a (PathBuf, Artifact)>,
    shared: &'a str,
    progress: &'a (dyn Fn(&str, &str) + Sync),
}

/// Runs `make(engine, i)` for i in 0..count spread over the engines; after the first failure
/// no later item starts (what one engine would have done).
fn spread_until_failure(
    engines: &mut [&mut Engine],
    count: usize,
    make: &(dyn Fn(&mut Engine, usize) -> Result<Made, SetterError> + Sync),
) -> Vec<Option<Result<Made, SetterError>>> {
    let failed_at = AtomicUsize::new(usize::MAX);
    let stop = |i: usize| i > failed_at.load(Ordering::SeqCst);
    crate::jobs::spread(engines, count, &stop, &|engine, i| {
        let r = make(engine, i);
        if r.is_err() {
            failed_at.fetch_min(i, Ordering::SeqCst);
        }
        r
    })
}

/// The generated inputs of `tests.toml`, validated, spread over the engines; then, in test
/// order, those whose bytes changed are written.
fn write_inputs(
    engines: &mut [&mut Engine],
    jury: &Jury,
    recipe: &recipe::Recipe,
    cache: &mut Cache,
    summary: &mut GenSummary,
) -> Result<(), SetterError> {
    let count = recipe.tests.len();
    let made = {
        let cache = &*cache;
        spread_until_failure(engines, count, &|engine, i| {
            make_input(engine, jury, recipe, cache, i)
        })
    };
    for (t, made) in recipe.tests.iter().zip(made) {
        let Some(made) = made else { break };
        match made? {
            Made::Cached => summary.cached += 1,
            Made::Bytes(bytes, key) => {
                let path = jury.tests_dir.join(format!("{}.in", t.name));
                write_if_changed(
                    &path,
                    &bytes,
                    &t.name,
                    &mut summary.inputs_written,
                    &mut summary.unchanged,
                )?;
                cache
                    .inputs
                    .insert(t.name.clone(), (key, fingerprint(&[&bytes])));
            }
        }
    }
    Ok(())
}

/// The `i`-th generated input: cached when neither its recipe nor the file changed, else
/// generated and validated.
fn make_input(
    engine: &mut Engine,
    jury: &Jury,
    recipe: &recipe::Recipe,
    cache: &Cache,
    i: usize,
) -> Result<Made, SetterError> {
    let (dir, count) = (jury.dir, recipe.tests.len());
    let t = &recipe.tests[i];
    let path = jury.tests_dir.join(format!("{}.in", t.name));
    let key = recipe_key(engine, dir, t, jury.shared)?;
    let current = std::fs::read(&path).ok().map(|b| fingerprint(&[&b]));
    if let (Some((k, written)), Some(cur)) = (cache.inputs.get(&t.name), &current) {
        if *k == key && written == cur {
            return Ok(Made::Cached);
        }
    }
    (jury.progress)(
        "Generating",
        &format!("{} ({}/{count}): {}", t.name, i + 1, describe(dir, t)),
    );
    let bytes = generate_input(engine, jury.builds, dir, t, jury.limit)?;
    if let Some((source, v)) = jury.validator {
        let tmp = engine.fresh_dir("gen")?.join("input");
        std::fs::write(&tmp, &bytes)
            .map_err(|e| SetterError::Other(format!("{}: {e}", tmp.display())))?;
        let verdict = crate::setter::jury::validate_input(engine, v, source, &tmp);
        let _ = std::fs::remove_dir_all(tmp.parent().unwrap_or(&tmp));
        verdict.map_err(|why| {
            SetterError::Other(format!(
                "test `{}` ({}): {}",
                t.name,
                describe(dir, t),
                not_valid(
                    &why,
                    source,
                    "fix the generator or its arguments in tests.toml"
                )
            ))
        })?;
    }
    Ok(Made::Bytes(bytes, key))
}

/// Every test's answer from the reference solution, spread over the engines; then, in test
/// order, those whose bytes changed are written.
fn write_answers(
    engines: &mut [&mut Engine],
    jury: &Jury,
    recipe: &recipe::Recipe,
    problem: &Problem,
    cache: &mut Cache,
    summary: &mut GenSummary,
) -> Result<(), SetterError> {
    let reference = reference_solution(jury.dir, &problem.slug)?;
    let ref_key = source_key(engines[0], jury.dir, &reference)?;
    let answering = Answering {
        jury,
        recipe,
        problem,
        reference: &reference,
        ref_key: &ref_key,
    };
    let count = problem.tests.len();
    let made = {
        let cache = &*cache;
        spread_until_failure(engines, count, &|engine, i| {
            answering.make(engine, cache, i)
        })
    };
    for (test, made) in problem.tests.iter().zip(made) {
        let Some(made) = made else { break };
        match made? {
            Made::Cached => summary.cached += 1,
            Made::Bytes(bytes, key) => {
                write_if_changed(
                    &test.answer,
                    &bytes,
                    &test.name,
                    &mut summary.answers_written,
                    &mut summary.unchanged,
                )?;
                cache
                    .answers
                    .insert(test.name.clone(), (key, fingerprint(&[&bytes])));
            }
        }
    }
    Ok(())
}

/// What answering a test needs: the jury, the recipe (which tests are generated), the problem
/// (its tests and limits), and the reference solution with its key.
struct Answering<'a> {
    jury: &'a Jury<'a>,
    recipe: &'a recipe::Recipe,
    problem: &'a Problem,
    reference: &'a Path,
    ref_key: &'a str,
}

impl Answering<'_> {
    /// The `i`-th test's answer: cached when neither the input, the reference nor the file
    /// changed, else the reference's output (a hand-made input validated first).
    fn make(&self, engine: &mut Engine, cache: &Cache, i: usize) -> Result<Made, SetterError> {
        let (jury, problem, reference) = (self.jury, self.problem, self.reference);
        let count = problem.tests.len();
        let test = &problem.tests[i];
        let input = std::fs::read(&test.input)
            .map_err(|e| SetterError::Other(format!("{}: {e}", test.input.display())))?;
        let key = fingerprint(&[jury.shared.as_bytes(), self.ref_key.as_bytes(), &input]);
        let current = std::fs::read(&test.answer).ok().map(|b| fingerprint(&[&b]));
        if let (Some((k, written)), Some(cur)) = (cache.answers.get(&test.name), &current) {
            if *k == key && written == cur {
                return Ok(Made::Cached);
            }
        }
        let hand_made = !self.recipe.tests.iter().any(|t| t.name == test.name);
        if let (true, Some((source, v))) = (hand_made, jury.validator) {
            // Generated inputs were validated above; a hand-made one is checked before the
            // reference sees it, so a broken file is named instead of crashing the reference.
            crate::setter::jury::validate_input(engine, v, source, &test.input).map_err(|why| {
                SetterError::Other(format!(
                    "hand-made test `{}` ({}): {}",
                    test.name,
                    test.input.display(),
                    not_valid(&why, source, "fix the file")
                ))
            })?;
        }
        (jury.progress)("Answering", &format!("{} ({}/{count})", test.name, i + 1));
        let artifact = jury.builds.get(engine, reference, "reference solution")?;
        let bytes = run_for_output(
            engine,
            &artifact,
            reference,
            &[],
            Some(&test.input),
            solution_limits(problem),
        )
        .map_err(|f| {
            SetterError::Other(format!(
                "{}: on test {}: {}\n  hint: the reference solution must pass every test within the problem's limits",
                reference.display(),
                test.name,
                f.render("the reference solution")
            ))
        })?;
        Ok(Made::Bytes(bytes, key))
    }
}

/// "invalid: reason" or "validator.py crashed …", with a hint.
fn not_valid(why: &NotValid, validator: &Path, hint: &str) -> String {
    let name = validator.file_name().unwrap_or_default().to_string_lossy();
    match why {
        NotValid::Rejected(reason) => {
            format!("invalid (rejected by {name}): {reason}\n  hint: {hint}")
        }
        NotValid::Crashed(f) => format!(
            "{}\n  hint: fix the validator: {}",
            f.render(&name),
            crate::setter::jury::VALIDATOR_RULE
        ),
    }
}

/// What one generated test showed `verify`.
enum Stale {
    /// Not run: its generator ran out of time on an earlier test.
    Skipped,
    /// The generator ran out of time.
    TimedOut(Finding),
    /// Findings about it; `true` marks the reference's failure, said once per problem.
    Found(Vec<(Finding, bool)>),
}

/// Regenerates every generated test and compares it, and the reference's answer, with the
/// committed files: one finding per stale file (a failed expectation) or failed jury program (a
/// judge error). `reference` is `None` when the package has none (`verify` says so once).
/// `progress(verb, what)` is called before each generator run. The tests are spread over the
/// engines; the findings are those one engine would make, in test order.
pub fn stale_tests(
    engines: &mut [&mut Engine],
    builds: &Builds,
    problem: &Problem,
    recipe: &recipe::Recipe,
    reference: Option<&Path>,
    options: &GenOptions,
    progress: &(dyn Fn(&str, &str) + Sync),
) -> Vec<Finding> {
    let limit = generator_time_limit(options.generator_time_limit, recipe);
    builds.prebuild(
        engines,
        recipe
            .tests
            .iter()
            .map(|t| t.generator.as_path())
            .chain(reference),
    );
    let hint = format!(
        "\n  hint: run `judge gen {}` and commit the result",
        problem.dir.display()
    );
    // A generator that ran out of time once is not run again: each run would cost the limit.
    // Jobs skip a test whose generator timed out on an earlier test; the replay below decides.
    let timed_out_at: std::sync::Mutex<BTreeMap<PathBuf, usize>> = Default::default();
    let count = recipe.tests.len();
    let check = |engine: &mut Engine, i: usize| -> Stale {
        let t = &recipe.tests[i];
        let earlier = |m: &BTreeMap<PathBuf, usize>| m.get(&t.generator).is_some_and(|&k| k < i);
        if earlier(&timed_out_at.lock().unwrap_or_else(|e| e.into_inner())) {
            return Stale::Skipped;
        }
        progress(
            "Generating",
            &format!(
                "{} ({}/{count}): {}",
                t.name,
                i + 1,
                describe(&problem.dir, t)
            ),
        );
        let input_path = problem.dir.join("tests").join(format!("{}.in", t.name));
        let bytes = match generate_input(engine, builds, &problem.dir, t, limit) {
            Ok(b) => b,
            Err(GenError::TimedOut(e)) => {
                let mut m = timed_out_at.lock().unwrap_or_else(|e| e.into_inner());
                let k = m.entry(t.generator.clone()).or_insert(i);
                *k = (*k).min(i);
                return Stale::TimedOut(Finding::broken(e.to_string()));
            }
            Err(GenError::Other(e)) => {
                return Stale::Found(vec![(Finding::broken(e.to_string()), false)])
            }
        };
        match std::fs::read(&input_path) {
            Ok(existing) if existing == bytes => {}
            Ok(_) => {
                return Stale::Found(vec![(
                    Finding::failed(format!(
                        "{}: stale: the generator now prints different bytes{hint}",
                        input_path.display()
                    )),
                    false,
                )]);
            }
            Err(_) => {
                return Stale::Found(vec![(
                    Finding::failed(format!(
                        "{}: missing generated test{hint}",
                        input_path.display()
                    )),
                    false,
                )]);
            }
        }
        let Some(reference) = reference else {
            return Stale::Found(Vec::new());
        };
        let answer_path = problem.dir.join("tests").join(format!("{}.ans", t.name));
        let answer = match builds.get(engine, reference, "reference solution") {
            Ok(a) => run_for_output(
                engine,
                &a,
                reference,
                &[],
                Some(&input_path),
                solution_limits(problem),
            )
            .map_err(|f| {
                format!(
                    "{}: on test {}: {}",
                    reference.display(),
                    t.name,
                    f.render("the reference solution")
                )
            }),
            Err(e) => Err(e.to_string()),
        };
        Stale::Found(match (answer, std::fs::read(&answer_path)) {
            (Ok(a), Ok(existing)) if a == existing => Vec::new(),
            (Ok(_), _) => vec![(
                Finding::failed(format!(
                    "{}: stale: the reference solution {} now answers differently{hint}",
                    answer_path.display(),
                    reference.display()
                )),
                false,
            )],
            (Err(why), _) => vec![(Finding::broken(why), true)],
        })
    };
    let results = crate::jobs::spread(engines, count, &|_| false, &check);
    // The replay: what one engine going through the tests in order would have found.
    let mut findings: Vec<Finding> = Vec::new();
    let mut too_slow: HashSet<PathBuf> = HashSet::new();
    let mut skipped: BTreeMap<PathBuf, usize> = BTreeMap::new();
    for (t, result) in recipe.tests.iter().zip(results) {
        if too_slow.contains(&t.generator) {
            *skipped.entry(t.generator.clone()).or_default() += 1;
            continue;
        }
        match result.unwrap_or(Stale::Skipped) {
            Stale::Skipped => {}
            Stale::TimedOut(f) => {
                too_slow.insert(t.generator.clone());
                findings.push(f);
            }
            Stale::Found(found) => {
                for (f, once) in found {
                    // The reference's build failure is the same for every test: say it once.
                    if !(once && findings.iter().any(|g| g.message == f.message)) {
                        findings.push(f);
                    }
                }
            }
        }
    }
    for (generator, n) in skipped {
        findings.push(Finding::broken(format!(
            "{}: not run for {n} more test(s) after it exceeded its time limit",
            generator.display()
        )));
    }
    findings
}

/// `gen/random.py 1 10`: the generator as tests.toml names it, and its arguments.
fn describe(dir: &Path, t: &recipe::Generated) -> String {
    let name = t.generator.strip_prefix(dir).unwrap_or(&t.generator);
    let mut s = name.display().to_string();
    for a in &t.args {
        s.push(' ');
        s.push_str(a);
    }
    s
}

/// Fingerprint of what every generated input and answer depends on beyond its own sources: the
/// judge's version, the limits of the problem (the reference runs under them) and the validator
/// (which accepted the inputs), with the language table's entry of each.
fn shared_key(
    engine: &Engine,
    dir: &Path,
    validator: Option<&Path>,
) -> Result<String, SetterError> {
    let problem_toml = std::fs::read(dir.join("problem.toml")).unwrap_or_default();
    let validator = match validator {
        Some(v) => source_key(engine, dir, v)?,
        None => String::new(),
    };
    Ok(fingerprint(&[
        env!("CARGO_PKG_VERSION").as_bytes(),
        &problem_toml,
        validator.as_bytes(),
    ]))
}

/// Fingerprint of one source: its bytes, its name (inside the package, so the key does not
/// depend on how the package was named or reached) and how the language table builds and runs it.
fn source_key(engine: &Engine, dir: &Path, source: &Path) -> Result<String, SetterError> {
    let bytes = std::fs::read(source)
        .map_err(|e| SetterError::Other(format!("{}: {e}", source.display())))?;
    // Inside the package: the path there; outside (the reference): the file name alone.
    let name = source
        .strip_prefix(dir)
        .ok()
        .or(source.file_name().map(Path::new))
        .unwrap_or(source);
    let language = engine
        .languages
        .for_source(source)
        .map(|l| format!("{l:?}"))
        .unwrap_or_default();
    Ok(fingerprint(&[
        &bytes,
        name.as_os_str().as_encoded_bytes(),
        language.as_bytes(),
    ]))
}

/// Fingerprint of what a generated input depends on: the generator, its arguments, and the
/// shared key (the validator that accepted it, …).
fn recipe_key(
    engine: &Engine,
    dir: &Path,
    t: &recipe::Generated,
    shared: &str,
) -> Result<String, SetterError> {
    let generator = source_key(engine, dir, &t.generator)?;
    let args = t.args.join("\0");
    Ok(fingerprint(&[
        generator.as_bytes(),
        args.as_bytes(),
        shared.as_bytes(),
    ]))
}

/// Why a generated input could not be made.
#[derive(Debug)]
pub enum GenError {
    /// The generator exceeded its time limit.
    TimedOut(SetterError),
    Other(SetterError),
}

impl From<GenError> for SetterError {
    fn from(e: GenError) -> SetterError {
        match e {
            GenError::TimedOut(e) | GenError::Other(e) => e,
        }
    }
}

/// Runs one generator entry under the generator time limit and returns the input it prints.
pub fn generate_input(
    engine: &mut Engine,
    builds: &Builds,
    dir: &Path,
    t: &recipe::Generated,
    limit: Duration,
) -> Result<Vec<u8>, GenError> {
    let artifact = builds
        .get(engine, &t.generator, "generator")
        .map_err(GenError::Other)?;
    run_for_output(
        engine,
        &artifact,
        &t.generator,
        &t.args,
        None,
        generator_limits(limit),
    )
    .map_err(|f| {
        let message = format!(
            "test `{}`: {}: {}",
            t.name,
            describe(dir, t),
            f.render("the generator")
        );
        if f.timed_out {
            GenError::TimedOut(SetterError::Other(message + &generator_time_hint(limit)))
        } else {
            GenError::Other(SetterError::Other(message))
        }
    })
    .and_then(|bytes| {
        if bytes.is_empty() {
            return Err(GenError::Other(SetterError::Other(format!(
                "test `{}`: {}: the generator printed nothing\n  hint: a generator prints the test's input on stdout; run it by hand with these arguments",
                t.name,
                describe(dir, t)
            ))));
        }
        Ok(bytes)
    })
}

fn write_if_changed(
    path: &Path,
    bytes: &[u8],
    name: &str,
    written: &mut Vec<String>,
    unchanged: &mut usize,
) -> Result<(), SetterError> {
    if std::fs::read(path).ok().as_deref() == Some(bytes) {
        *unchanged += 1;
        return Ok(());
    }
    stage::write(path, bytes)
        .map_err(|e| SetterError::Other(format!("{}: cannot write: {e}", path.display())))?;
    written.push(name.to_string());
    Ok(())
}

#[cfg(test)]
mod tests;
