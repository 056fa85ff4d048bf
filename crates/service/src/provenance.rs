//! What a verdict was judged on, by hash: the package's tests (each input and answer), its
//! checker and validators (`judge_core`'s [`Inputs`]), the language entry that built the
//! source (its fingerprint and its toolchain's version line). The worker makes it from the
//! package it judged and the finish stores it with the result (columns of `submissions`, and
//! each test's hashes in `test_results`); the source is the submission's blob, the package
//! its `judged_package`, the environment its judging's digest. [`stale`] compares a stored
//! result with a problem's current package and the current language table.

use judge_core::lang::{LangError, Language, Languages};
use judge_core::package::{Inputs, Problem};
use std::path::Path;

/// A judging's inputs besides the source and the package's hash.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Provenance {
    /// (name, input hash, answer hash) of every test of the package.
    pub tests: Vec<(String, String, String)>,
    pub checker: String,
    pub validator: String,
    /// The language entry that built the source: its name, fingerprint and version line.
    pub language: String,
    pub language_hash: String,
    pub language_version: Option<String>,
}

/// A language entry as recorded: its name, fingerprint and toolchain's version line.
pub fn language_of(entry: &Language) -> (String, String, Option<String>) {
    (
        entry.name.clone(),
        entry.fingerprint(),
        entry.toolchain().and_then(judge_core::lang::version_line),
    )
}

/// The entry `languages` builds `filename` with for `problem`: `language` when the submission
/// named one, else the one its file name tells, as the worker chooses it.
pub fn entry_for<'a>(
    languages: &'a mut Languages,
    problem: &Problem,
    filename: &str,
    language: Option<&str>,
) -> Result<&'a Language, LangError> {
    problem.set_languages(languages);
    // The pins are by path: a path of its own for this source (never read).
    let source = Path::new("/nonexistent-judge-source").join(filename);
    match language {
        Some(name) => languages.pin_named(&source, name),
        None => languages.for_source(&source),
    }
}

/// The provenance of judging `source` on `problem` with `languages` (already set for it, the
/// source's language pinned). None when the package's files cannot be read.
pub fn of(problem: &Problem, languages: &Languages, source: &Path) -> Option<Provenance> {
    let inputs = problem.inputs().ok()?;
    let (language, language_hash, language_version) = match languages.for_source(source) {
        Ok(entry) => language_of(entry),
        Err(_) => Default::default(),
    };
    Some(Provenance {
        tests: inputs
            .tests
            .into_iter()
            .map(|t| (t.name, t.input, t.answer))
            .collect(),
        checker: inputs.checker,
        validator: inputs.validator,
        language,
        language_hash,
        language_version,
    })
}

/// A test a result was judged on: its name, input hash and answer hash (none: not recorded).
pub type RecordedTest = (String, Option<String>, Option<String>);

/// A language entry as the current table has it: its fingerprint and version line.
pub type CurrentLanguage = (String, Option<String>);

/// A stored result's inputs, as read back to compare.
#[derive(Debug, Clone, Default)]
pub struct Recorded {
    /// None: the result records no inputs (judged by an older judge, or never judged: the
    /// queue's JE after its attempts).
    pub checker: Option<String>,
    pub validator: Option<String>,
    pub language_hash: Option<String>,
    pub language_version: Option<String>,
    /// (name, input hash, answer hash) of the tests it was judged on.
    pub tests: Vec<RecordedTest>,
}

/// Why a result's inputs are not the current ones (empty: they are): `test NAME input`,
/// `test NAME answer`, `test NAME removed`, `test NAME added`, `checker`, `validator`,
/// `language`, `language version`, `no recorded inputs`. `current_language`: the entry the
/// current table builds it with (fingerprint, version line), None when none does. A result
/// that ran no test (a CE) depends on no test, checker or validator. A version line is compared only when both
/// are known (a server without the toolchain cannot say).
pub fn stale(
    recorded: &Recorded,
    current: &Inputs,
    current_language: Option<&CurrentLanguage>,
) -> Vec<String> {
    let Some(checker) = &recorded.checker else {
        return vec!["no recorded inputs".into()];
    };
    let mut why = Vec::new();
    // What ran no test (a CE) used no test, checker or validator.
    let tested = !recorded.tests.is_empty();
    if tested {
        for (name, input, answer) in &recorded.tests {
            match current.test(name) {
                None => why.push(format!("test {name} removed")),
                Some(now) => {
                    if input.as_deref() != Some(now.input.as_str()) {
                        why.push(format!("test {name} input"));
                    }
                    if answer.as_deref() != Some(now.answer.as_str()) {
                        why.push(format!("test {name} answer"));
                    }
                }
            }
        }
        for t in &current.tests {
            if !recorded.tests.iter().any(|(name, _, _)| *name == t.name) {
                why.push(format!("test {} added", t.name));
            }
        }
    }
    if tested && *checker != current.checker {
        why.push("checker".into());
    }
    if tested && recorded.validator.as_deref() != Some(current.validator.as_str()) {
        why.push("validator".into());
    }
    match current_language {
        None => why.push("language".into()),
        Some((hash, version)) => {
            if recorded.language_hash.as_deref() != Some(hash.as_str()) {
                why.push("language".into());
            } else if let (Some(now), Some(then)) = (version, &recorded.language_version) {
                if now != then {
                    why.push("language version".into());
                }
            }
        }
    }
    why
}

#[cfg(test)]
mod tests {
    use super::*;
    use judge_core::package::TestInputs;

    fn current() -> Inputs {
        Inputs {
            tests: ["1", "2"]
                .iter()
                .map(|n| TestInputs {
                    name: n.to_string(),
                    input: format!("in{n}"),
                    answer: format!("ans{n}"),
                })
                .collect(),
            checker: "chk".into(),
            validator: "val".into(),
        }
    }

    fn judged_on(inputs: &Inputs) -> Recorded {
        Recorded {
            checker: Some(inputs.checker.clone()),
            validator: Some(inputs.validator.clone()),
            language_hash: Some("c".into()),
            language_version: Some("gcc 12".into()),
            tests: inputs
                .tests
                .iter()
                .map(|t| {
                    (
                        t.name.clone(),
                        Some(t.input.clone()),
                        Some(t.answer.clone()),
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn each_changed_input_is_named_and_a_ce_depends_on_its_language_alone() {
        let now = current();
        let c = ("c".to_string(), Some("gcc 12".to_string()));
        let same = judged_on(&now);
        assert!(stale(&same, &now, Some(&c)).is_empty());
        let mut answer = now.clone();
        answer.tests[1].answer = "other".into();
        assert_eq!(stale(&same, &answer, Some(&c)), ["test 2 answer"]);
        let mut added = now.clone();
        added.tests.push(TestInputs {
            name: "3".into(),
            input: "in3".into(),
            answer: "ans3".into(),
        });
        added.checker = "chk2".into();
        assert_eq!(stale(&same, &added, Some(&c)), ["test 3 added", "checker"]);
        let newer = ("c".to_string(), Some("gcc 13".to_string()));
        assert_eq!(stale(&same, &now, Some(&newer)), ["language version"]);
        // A server that cannot ask the toolchain compares the entry alone.
        assert!(stale(&same, &now, Some(&("c".into(), None))).is_empty());
        assert_eq!(stale(&same, &now, Some(&("c2".into(), None))), ["language"]);
        let ce = Recorded {
            tests: Vec::new(),
            ..same.clone()
        };
        assert!(stale(&ce, &added, Some(&c)).is_empty());
        assert_eq!(stale(&ce, &now, Some(&("c2".into(), None))), ["language"]);
        assert_eq!(
            stale(&Recorded::default(), &now, Some(&c)),
            ["no recorded inputs"]
        );
    }
}
