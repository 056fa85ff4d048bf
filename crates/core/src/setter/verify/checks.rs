//! The package's own checks in `verify`: its tests against the validator, and its checker
//! against `checker_tests.toml`.

use super::*;

/// Runs the validator on every test: one finding per invalid test (a failed expectation) and per
/// crash of the validator (a judge error). After the validator runs out of time once, the other
/// tests are not validated (each would cost the whole limit). The tests are spread over the
/// engines; the findings are those of one engine going through them in order.
pub fn validate_tests(
    engines: &mut [&mut Engine],
    builds: &Builds,
    problem: &Problem,
    progress: &(dyn Fn(&str, &str) + Sync),
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for program in &problem.validators {
        findings.extend(validate_with(engines, builds, problem, program, progress));
    }
    findings
}

/// Runs one validator of the package on every test.
pub(super) fn validate_with(
    engines: &mut [&mut Engine],
    builds: &Builds,
    problem: &Problem,
    program: &crate::package::Program,
    progress: &(dyn Fn(&str, &str) + Sync),
) -> Vec<Finding> {
    let validator = &program.source;
    let name = validator
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    // A validator with helper files (testlib.h) or a Kattis package's constants is built with
    // them; a plain one once per session.
    let built = if program.helpers.is_empty() && problem.constants.is_empty() {
        builds.get(engines[0], validator, "validator")
    } else {
        match engines[0].build_program_with(program, &problem.constants) {
            Ok((Some(a), _)) => Ok(a),
            Ok((None, report)) => Err(SetterError::Other(format!(
                "{}: the validator does not compile:\n{}",
                validator.display(),
                report.message
            ))),
            Err(e) => Err(SetterError::Other(format!("{}: {e}", validator.display()))),
        }
    };
    let artifact = match built {
        Ok(a) => a,
        Err(SetterError::Other(message)) => return vec![Finding::broken(message)],
        Err(e) => return vec![Finding::broken(format!("{}: {e}", validator.display()))],
    };
    let count = problem.tests.len();
    // The first test the validator ran out of time on: later ones are not started.
    let timed_out_at = AtomicUsize::new(usize::MAX);
    let validate = |engine: &mut Engine, i: usize| {
        let test = &problem.tests[i];
        progress("Validating", &format!("{} ({}/{count})", test.name, i + 1));
        let result = validate_input_with(
            engine,
            &artifact,
            validator,
            &test.input,
            &test.validator_args,
            program.protocol,
        );
        if let Err(NotValid::Crashed(f)) = &result {
            if f.timed_out {
                timed_out_at.fetch_min(i, Ordering::SeqCst);
            }
        }
        result
    };
    let stop = |i: usize| i > timed_out_at.load(Ordering::SeqCst);
    let results = spread(engines, count, &stop, &validate);
    let mut findings = Vec::new();
    for (i, (test, result)) in problem.tests.iter().zip(results).enumerate() {
        let Some(result) = result else { break };
        match result {
            Ok(()) => {}
            Err(NotValid::Rejected(why)) => findings.push(Finding::failed(format!(
                "{}: invalid test (rejected by {name}): {why}",
                test.input.display()
            ))),
            Err(NotValid::Crashed(f)) => {
                findings.push(Finding::broken(format!(
                    "{}: {}\n  hint: fix the validator: {VALIDATOR_RULE}",
                    test.input.display(),
                    f.render(&name)
                )));
                if f.timed_out && i + 1 < count {
                    findings.push(Finding::broken(format!(
                        "{}: not run on the other {} test(s) after it exceeded its time limit",
                        validator.display(),
                        count - i - 1
                    )));
                    break;
                }
            }
        }
    }
    findings
}

/// Runs `checker_tests.toml`: one finding per case the checker judges otherwise (a failed
/// expectation) or fails on (a judge error).
pub(super) fn run_checker_tests(
    engine: &mut Engine,
    problem: &Problem,
    checker: &Checker,
) -> Vec<Finding> {
    let names: Vec<&str> = problem.tests.iter().map(|t| t.name.as_str()).collect();
    let cases = match recipe::load_checker_tests(&problem.dir, &names) {
        Ok(c) => c,
        Err(e) => return vec![Finding::broken(e.to_string())],
    };
    let mut errors = Vec::new();
    for case in cases {
        let test = problem
            .tests
            .iter()
            .find(|t| t.name == case.test)
            .expect("checked on load");
        let dir = match engine.fresh_dir("checker-test") {
            Ok(d) => d,
            Err(e) => return vec![Finding::broken(e.to_string())],
        };
        let output = dir.join("output");
        if let Err(e) = std::fs::write(&output, &case.output) {
            errors.push(Finding::broken(format!("{}: {e}", output.display())));
            continue;
        }
        let file = problem.dir.join("checker_tests.toml");
        match engine.check(checker, &test.input, &output, &test.answer) {
            Ok(o) => {
                let got = match o.judgement {
                    crate::checker::Judgement::Accepted => "AC",
                    crate::checker::Judgement::WrongAnswer => "WA",
                    crate::checker::Judgement::PresentationError => "PE",
                };
                if got != case.expect {
                    errors.push(Finding::failed(format!(
                        "{}: checker test `{}` expects {} but the checker said {got}",
                        file.display(),
                        case.name,
                        case.expect
                    )));
                }
            }
            Err(why) => errors.push(Finding::broken(format!(
                "{}: checker test `{}` expects {} but the checker failed: {why}",
                file.display(),
                case.name,
                case.expect
            ))),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    errors
}
