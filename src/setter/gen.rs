//! `judge gen`: (re)build generated inputs from `tests.toml` and every `.ans` from the reference
//! solution. Deterministic; a cache (`.judge-cache.json` in the package) skips work whose inputs
//! did not change, and files are only written when their bytes change.

use super::{fingerprint, reference_solution, run_for_output, Builds, SetterError};
use crate::judge::{checker_limits, solution_limits, Engine};
use crate::package::{recipe, Problem};
use std::collections::BTreeMap;
use std::path::Path;

const CACHE_FILE: &str = ".judge-cache.json";

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Cache {
    /// test name -> (recipe fingerprint, fingerprint of the .in written)
    inputs: BTreeMap<String, (String, String)>,
    /// test name -> (reference + input fingerprint, fingerprint of the .ans written)
    answers: BTreeMap<String, (String, String)>,
}

/// What `gen` did.
#[derive(Debug, Default)]
pub struct GenSummary {
    pub inputs_written: Vec<String>,
    pub answers_written: Vec<String>,
    /// Work skipped because nothing it depends on changed.
    pub cached: usize,
    /// Regenerated, and identical to what was there.
    pub unchanged: usize,
}

/// Runs `gen` on the package in `dir`. `progress` receives one line per step.
pub fn generate(
    engine: &mut Engine,
    dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<GenSummary, SetterError> {
    let recipe = recipe::load_recipe(dir)?;
    let problem = Problem::load_inputs(dir)?;
    let cache_path = dir.join(CACHE_FILE);
    let mut cache: Cache = std::fs::read(&cache_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut summary = GenSummary::default();
    let mut builds = Builds::default();
    let validator = match &problem.validator {
        Some(v) => Some(builds.get(engine, v, "validator")?),
        None => None,
    };
    let tests_dir = dir.join("tests");
    std::fs::create_dir_all(&tests_dir)
        .map_err(|e| SetterError::Other(format!("{}: {e}", tests_dir.display())))?;
    for t in &recipe {
        let path = tests_dir.join(format!("{}.in", t.name));
        let key = recipe_key(dir, t)?;
        let current = std::fs::read(&path).ok().map(|b| fingerprint(&[&b]));
        if let (Some((k, written)), Some(cur)) = (cache.inputs.get(&t.name), &current) {
            if *k == key && written == cur {
                summary.cached += 1;
                continue;
            }
        }
        progress(&format!("generating {}", t.name));
        let bytes = generate_input(engine, &mut builds, t)?;
        if let Some(v) = &validator {
            let tmp = engine.fresh_dir("gen")?.join("input");
            std::fs::write(&tmp, &bytes)
                .map_err(|e| SetterError::Other(format!("{}: {e}", tmp.display())))?;
            crate::verify::validate_input(engine, v, &tmp).map_err(|why| {
                SetterError::Other(format!(
                    "test `{}` ({} {}) is invalid: {why}\n  hint: fix the generator or its arguments in tests.toml",
                    t.name,
                    t.generator.display(),
                    t.args.join(" ")
                ))
            })?;
        }
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

    // Answers for every test, generated or hand-made, from the reference solution.
    let problem = Problem::load_inputs(dir)?;
    let reference = reference_solution(dir, &problem.slug)?;
    let ref_bytes = std::fs::read(&reference)
        .map_err(|e| SetterError::Other(format!("{}: {e}", reference.display())))?;
    for test in &problem.tests {
        let input = std::fs::read(&test.input)
            .map_err(|e| SetterError::Other(format!("{}: {e}", test.input.display())))?;
        let ref_name = reference.file_name().unwrap_or_default().as_encoded_bytes();
        let key = fingerprint(&[&ref_bytes, ref_name, &input]);
        let current = std::fs::read(&test.answer).ok().map(|b| fingerprint(&[&b]));
        if let (Some((k, written)), Some(cur)) = (cache.answers.get(&test.name), &current) {
            if *k == key && written == cur {
                summary.cached += 1;
                continue;
            }
        }
        let hand_made = !recipe.iter().any(|t| t.name == test.name);
        if let (true, Some(v)) = (hand_made, &validator) {
            // Generated inputs were validated above; a hand-made one is checked before the
            // reference sees it, so a broken file is named instead of crashing the reference.
            crate::verify::validate_input(engine, v, &test.input).map_err(|why| {
                SetterError::Other(format!(
                    "hand-made test `{}` ({}) is invalid: {why}\n  hint: fix the file",
                    test.name,
                    test.input.display()
                ))
            })?;
        }
        progress(&format!("answering {}", test.name));
        let artifact = builds.get(engine, &reference, "reference solution")?;
        let bytes = run_for_output(
            engine,
            &artifact,
            &[],
            Some(&test.input),
            solution_limits(&problem),
            "reference solution",
        )
        .map_err(|why| {
            SetterError::Other(format!(
                "{}: on test {}: {why}",
                reference.display(),
                test.name
            ))
        })?;
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
    let names: Vec<&String> = problem.tests.iter().map(|t| &t.name).collect();
    cache.answers.retain(|k, _| names.contains(&k));
    cache
        .inputs
        .retain(|k, _| recipe.iter().any(|t| &t.name == k));
    let json = serde_json::to_vec_pretty(&cache).expect("cache serializes");
    std::fs::write(&cache_path, json)
        .map_err(|e| SetterError::Other(format!("{}: {e}", cache_path.display())))?;
    Ok(summary)
}

/// Regenerates every generated test and compares with the committed files; one message per stale file.
pub fn stale_tests(engine: &mut Engine, problem: &Problem) -> Vec<String> {
    let recipe = match recipe::load_recipe(&problem.dir) {
        Ok(r) => r,
        Err(e) => return vec![e.to_string()],
    };
    if recipe.is_empty() {
        return Vec::new();
    }
    let mut builds = Builds::default();
    let mut errors = Vec::new();
    let hint = format!(
        "\n  hint: run `judge gen {}` and commit the result",
        problem.dir.display()
    );
    let reference = match reference_solution(&problem.dir, &problem.slug) {
        Ok(r) => Some(r),
        Err(e) => {
            errors.push(e.to_string());
            None
        }
    };
    for t in &recipe {
        let input_path = problem.dir.join("tests").join(format!("{}.in", t.name));
        let bytes = match generate_input(engine, &mut builds, t) {
            Ok(b) => b,
            Err(e) => {
                errors.push(e.to_string());
                continue;
            }
        };
        match std::fs::read(&input_path) {
            Ok(existing) if existing == bytes => {}
            Ok(_) => {
                errors.push(format!(
                    "{}: stale: the generator now prints different bytes{hint}",
                    input_path.display()
                ));
                continue;
            }
            Err(_) => {
                errors.push(format!(
                    "{}: missing generated test{hint}",
                    input_path.display()
                ));
                continue;
            }
        }
        let Some(reference) = &reference else {
            continue;
        };
        let answer_path = problem.dir.join("tests").join(format!("{}.ans", t.name));
        let answer = builds
            .get(engine, reference, "reference solution")
            .map_err(|e| e.to_string())
            .and_then(|a| {
                run_for_output(
                    engine,
                    &a,
                    &[],
                    Some(&input_path),
                    solution_limits(problem),
                    "reference solution",
                )
            });
        match (answer, std::fs::read(&answer_path)) {
            (Ok(a), Ok(existing)) if a == existing => {}
            (Ok(_), _) => errors.push(format!(
                "{}: stale: the reference solution {} now answers differently{hint}",
                answer_path.display(),
                reference.display()
            )),
            (Err(why), _) => errors.push(format!(
                "{}: on test {}: {why}",
                reference.display(),
                t.name
            )),
        }
    }
    errors
}

/// Fingerprint of what a generated input depends on: the generator's source and name (inside the
/// package, so the key does not depend on how the package was named) and the arguments.
fn recipe_key(dir: &Path, t: &recipe::Generated) -> Result<String, SetterError> {
    let src = std::fs::read(&t.generator)
        .map_err(|e| SetterError::Other(format!("{}: {e}", t.generator.display())))?;
    let name = t.generator.strip_prefix(dir).unwrap_or(&t.generator);
    let args = t.args.join("\0");
    Ok(fingerprint(&[
        &src,
        name.as_os_str().as_encoded_bytes(),
        args.as_bytes(),
    ]))
}

/// Runs one generator entry and returns the input it prints.
pub fn generate_input(
    engine: &mut Engine,
    builds: &mut Builds,
    t: &recipe::Generated,
) -> Result<Vec<u8>, SetterError> {
    let artifact = builds.get(engine, &t.generator, "generator")?;
    run_for_output(
        engine,
        &artifact,
        &t.args,
        None,
        checker_limits(),
        "generator",
    )
    .map_err(|why| {
        SetterError::Other(format!(
            "test `{}`: {} {}: {why}",
            t.name,
            t.generator.display(),
            t.args.join(" ")
        ))
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
    std::fs::write(path, bytes)
        .map_err(|e| SetterError::Other(format!("{}: cannot write: {e}", path.display())))?;
    written.push(name.to_string());
    Ok(())
}
