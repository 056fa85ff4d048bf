//! A Kattis package's submissions and what each must get: the verdict folders' defaults
//! (`submissions/accepted/`, …), `submissions/submissions.yaml` (2025-09: `permitted`,
//! `required`, `score`, `entrypoint`, `message`, and the same under a test group's name) on top,
//! and a source's `@EXPECTED_RESULTS@` comment over both.

use crate::package::raw::kattis::{GroupRule, Submission};
use crate::package::raw::{self, Args, Ordered};
use crate::package::{PackageError, Solution, TestRule};
use judge_model::score::Expected;
use judge_model::Verdict;
use std::path::{Path, PathBuf};
use Verdict::{AC, CE, MLE, OLE, PE, RE, TLE, WA};

/// The verdicts a Kattis name stands for (the spec's `AC`/`WA`/`TLE`/`RTE`, the folder names, and
/// the `@EXPECTED_RESULTS@` names of BAPCtools and DOMjudge). Kattis has no PE, MLE or OLE: a
/// wrong format is a WA, a program out of memory a run-time error. Output past the limit is a
/// run-time error for problemtools (the write fails) and a time limit for DOMjudge (it cuts the
/// output and lets the program run on): packages expect either, so OLE stands for both.
fn kattis_verdicts(name: &str) -> Option<&'static [Verdict]> {
    let name = name.trim().to_ascii_uppercase().replace('-', "_");
    Some(match name.as_str() {
        "AC" | "ACCEPTED" | "CORRECT" => &[AC],
        "WA" | "WRONG_ANSWER" | "NO_OUTPUT" => &[WA],
        "TLE" | "TIME_LIMIT_EXCEEDED" | "TIMELIMIT" => &[TLE, OLE],
        "RTE" | "RUN_TIME_ERROR" | "RUN_ERROR" | "RUNTIME_ERROR" => &[RE, MLE, OLE],
        "OUTPUT_LIMIT" | "OUTPUT_LIMIT_EXCEEDED" => &[OLE],
        "MEMORY_LIMIT_EXCEEDED" => &[MLE],
        "COMPILER_ERROR" | "COMPILE_ERROR" => &[CE],
        _ => return None,
    })
}

/// Every verdict a run can end with, CE aside.
const RUN_VERDICTS: [Verdict; 7] = [AC, WA, PE, TLE, MLE, OLE, RE];

/// A `permitted` / `required` pair in our verdicts.
#[derive(Debug, Clone)]
struct Requirement {
    permitted: Vec<Verdict>,
    required: Vec<Verdict>,
}

impl Requirement {
    fn new(permitted: &[&str], required: &[&str]) -> Requirement {
        let map = |names: &[&str]| -> Vec<Verdict> {
            let mut out: Vec<Verdict> = names
                .iter()
                .flat_map(|n| kattis_verdicts(n).unwrap_or(&[]).iter().copied())
                .collect();
            out.sort();
            out.dedup();
            out
        };
        Requirement {
            permitted: map(permitted),
            required: map(required),
        }
    }

    /// The final verdicts it allows: a failing test's verdict (permitted), or AC when every test
    /// may pass.
    fn finals(&self) -> Vec<Verdict> {
        self.permitted
            .iter()
            .copied()
            .filter(|v| *v != AC || self.required.contains(&AC))
            .collect()
    }
}

/// The spec's default requirement of a submissions folder.
fn folder_requirement(folder: &str) -> Option<Requirement> {
    let all = ["AC", "WA", "TLE", "RTE"];
    Some(match folder {
        "accepted" => Requirement::new(&["AC"], &all),
        "rejected" => Requirement::new(&all, &["RTE", "TLE", "WA"]),
        "wrong_answer" => Requirement::new(&["AC", "WA"], &["WA"]),
        "time_limit_exceeded" => Requirement::new(&["AC", "TLE"], &["TLE"]),
        "run_time_error" => Requirement::new(&["AC", "RTE"], &["RTE"]),
        "brute_force" => Requirement::new(&["AC", "RTE", "TLE"], &["RTE", "TLE"]),
        _ => return None,
    })
}

fn verdict_names(v: &[Verdict]) -> String {
    v.iter().map(|v| v.code()).collect::<Vec<_>>().join(", ")
}

/// `{a,b}` brace expansion (one level at a time, recursively; spaces around an alternative
/// do not count).
pub(crate) fn expand_braces(pattern: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (pattern.find('{'), pattern.find('}')) else {
        return vec![pattern.to_string()];
    };
    if close < open {
        return vec![pattern.to_string()];
    }
    let (head, rest) = pattern.split_at(open);
    let inner = &rest[1..close - open];
    let tail = &rest[close - open + 1..];
    inner
        .split(',')
        .flat_map(|alt| expand_braces(&format!("{head}{}{tail}", alt.trim())))
        .collect()
}

/// `*` matches within one path component.
pub(crate) fn glob_match(pattern: &str, path: &str) -> bool {
    let (p, t): (Vec<&str>, Vec<&str>) = (
        pattern.trim_end_matches('/').split('/').collect(),
        path.split('/').collect(),
    );
    p.len() == t.len()
        && p.iter()
            .zip(&t)
            .all(|(p, t)| component_match(p.as_bytes(), t.as_bytes()))
}

fn component_match(p: &[u8], t: &[u8]) -> bool {
    match p.split_first() {
        None => t.is_empty(),
        Some((b'*', rest)) => (0..=t.len()).any(|i| component_match(rest, &t[i..])),
        Some((c, rest)) => t.first() == Some(c) && component_match(rest, &t[1..]),
    }
}

/// [`expected_results`] of a submission: its file's, or for a folder (a multi-file submission)
/// the first of its files to carry the comment, as BAPCtools reads them.
fn marked_results(item: &Path) -> Result<Option<(Vec<Verdict>, String)>, PackageError> {
    if item.is_file() {
        return expected_results(item);
    }
    for file in crate::package::visible_entries(item, "cannot read")? {
        if file.is_file() {
            if let Some(found) = expected_results(&file)? {
                return Ok(Some(found));
            }
        }
    }
    Ok(None)
}

/// `@EXPECTED_RESULTS@: WRONG_ANSWER, TIME_LIMIT_EXCEEDED` in a source file.
fn expected_results(file: &Path) -> Result<Option<(Vec<Verdict>, String)>, PackageError> {
    const MARK: &str = "@EXPECTED_RESULTS@:";
    let Ok(bytes) = std::fs::read(file) else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(1 << 20)]);
    let Some(at) = text.find(MARK) else {
        return Ok(None);
    };
    let line = text[at + MARK.len()..].lines().next().unwrap_or("");
    let mut out = Vec::new();
    for name in line.split(',').map(|n| {
        n.trim()
            .trim_end_matches("*/")
            .trim_end_matches("-->")
            .trim()
    }) {
        if name.is_empty() {
            continue;
        }
        let Some(v) = kattis_verdicts(name) else {
            let (l, c) = crate::text::line_column(&text, at);
            let mut e = PackageError::new(
                file,
                format!("unknown verdict `{name}` in @EXPECTED_RESULTS@"),
            );
            e.position = Some((l, c));
            return Err(e.hint("use ACCEPTED, WRONG_ANSWER, TIME_LIMIT_EXCEEDED, RUN_TIME_ERROR (or DOMjudge's CORRECT, WRONG-ANSWER, TIMELIMIT, RUN-ERROR)"));
        };
        out.extend_from_slice(v);
    }
    out.sort();
    out.dedup();
    Ok(Some((out, format!("@EXPECTED_RESULTS@: {}", line.trim()))))
}

/// A `submissions.yaml` entry, validated: the submissions its pattern names and what they
/// must get.
struct Rule {
    pattern: String,
    requirement: Requirement,
    /// Keyed by a default folder's name: replaces that folder's requirement.
    folder: bool,
    entrypoint: Option<String>,
    score: Option<Expected>,
    tests: Vec<TestRule>,
}

/// A `submissions.yaml` verdict list (`permitted`, `required`) under `at`.
fn verdict_list(
    list: Option<Args>,
    key: &str,
    at: &str,
    yaml_path: &Path,
) -> Result<Option<Vec<String>>, PackageError> {
    let Some(Args(names)) = list else {
        return Ok(None);
    };
    for n in &names {
        if !["AC", "WA", "TLE", "RTE"].contains(&n.as_str()) {
            return Err(PackageError::new(
                yaml_path,
                format!("`{at}`: `{n}` in {key} is not a verdict"),
            )
            .hint("the verdicts are AC, WA, TLE and RTE"));
        }
    }
    Ok(Some(names))
}

/// A `submissions.yaml` `score` under `at`: a number or an inclusive range.
fn score_of(
    score: Option<raw::kattis::Score>,
    at: &str,
    yaml_path: &Path,
) -> Result<Option<Expected>, PackageError> {
    let Some(raw::kattis::Score(ends)) = score else {
        return Ok(None);
    };
    match ends.as_slice() {
        [x] => Ok(Some(Expected::Between(*x, *x))),
        [lo, hi] if lo <= hi => Ok(Some(Expected::Between(*lo, *hi))),
        _ => Err(PackageError::new(
            yaml_path,
            format!("`{at}`: `score` must be a number or a list of two"),
        )
        .hint("e.g. score: 40, or score: [20, 60]")),
    }
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The rules of `submissions.yaml` in its order; keys it does not know are warnings.
fn read_rules(
    yaml_path: &Path,
    warnings: &mut Vec<PackageError>,
) -> Result<Vec<Rule>, PackageError> {
    let read = raw::read_yaml::<Ordered<Submission>>(yaml_path, &|_| {
        "e.g. wrong_answer/slow.py:\n  permitted: [AC, WA, TLE]\n  sample:\n    required: [AC]"
            .to_string()
    })?;
    for key in &read.unknown {
        let at = match key.0.as_slice() {
            [pattern, group, rest @ ..] if !rest.is_empty() => {
                format!("`{pattern}` › `{group}`: unknown key `{}`", rest.join("."))
            }
            [pattern, rest @ ..] => format!("`{pattern}`: unknown key `{}`", rest.join(".")),
            [] => continue,
        };
        warnings.push(PackageError::new(yaml_path, format!("{at}; ignored")));
    }
    let mut rules = Vec::new();
    for (pattern, entry) in read.value.0 {
        for key in &entry.unknown {
            warnings.push(PackageError::new(
                yaml_path,
                format!("`{pattern}`: unknown key `{key}`; ignored"),
            ));
        }
        rules.push(rule(pattern, entry, yaml_path)?);
    }
    Ok(rules)
}

/// One entry of `submissions.yaml`, validated.
fn rule(pattern: String, entry: Submission, yaml_path: &Path) -> Result<Rule, PackageError> {
    let permitted = verdict_list(entry.permitted, "permitted", &pattern, yaml_path)?;
    let required = verdict_list(entry.required, "required", &pattern, yaml_path)?;
    let mut tests = Vec::new();
    if let Some(message) = entry.message {
        tests.push(TestRule {
            tests: Vec::new(),
            permitted: None,
            required: None,
            score: None,
            message: Some(message.0),
            origin: format!("submissions.yaml `{pattern}`"),
        });
    }
    for (group, g) in entry.groups {
        tests.push(group_rule(&pattern, &group, g, yaml_path)?);
    }
    // A folder's name replaces the keys it gives of the folder's default.
    let base = folder_requirement(&pattern);
    let all = ["AC", "WA", "TLE", "RTE"];
    let requirement = match &base {
        Some(b) => Requirement {
            permitted: permitted.as_deref().map_or(b.permitted.clone(), |p| {
                Requirement::new(&strs(p), &[]).permitted
            }),
            required: required.as_deref().map_or(b.required.clone(), |r| {
                Requirement::new(&[], &strs(r)).required
            }),
        },
        None => Requirement::new(
            &permitted.as_deref().map_or(all.to_vec(), strs),
            &required.as_deref().map_or(all.to_vec(), strs),
        ),
    };
    Ok(Rule {
        score: score_of(entry.score, &pattern, yaml_path)?,
        entrypoint: entry.entrypoint.map(|e| e.0),
        folder: base.is_some(),
        requirement,
        pattern,
        tests,
    })
}

/// Requirements on the tests of a group (a test glob relative to `data/`) under `pattern`.
fn group_rule(
    pattern: &str,
    group: &str,
    g: GroupRule,
    yaml_path: &Path,
) -> Result<TestRule, PackageError> {
    let at = format!("{pattern}` › `{group}");
    Ok(TestRule {
        tests: expand_braces(group),
        permitted: verdict_list(g.permitted, "permitted", &at, yaml_path)?
            .map(|p| Requirement::new(&strs(&p), &[]).permitted),
        required: verdict_list(g.required, "required", &at, yaml_path)?
            .map(|r| Requirement::new(&[], &strs(&r)).required),
        score: score_of(g.score, &at, yaml_path)?,
        message: g.message.map(|m| m.0),
        origin: format!("submissions.yaml `{at}`"),
    })
}

/// The package's submissions (`submissions/<folder>/<file or folder>`) with their expectations:
/// the folder's default, `submissions.yaml` (2025-09) on top, a source's `@EXPECTED_RESULTS@`
/// over both.
pub(super) fn read(
    dir: &Path,
    modern: bool,
    warnings: &mut Vec<PackageError>,
) -> Result<Vec<Solution>, PackageError> {
    let root = dir.join("submissions");
    let Ok(entries) = std::fs::read_dir(&root) else {
        return Ok(Vec::new());
    };
    let yaml_path = root.join("submissions.yaml");
    let rules = if yaml_path.is_file() {
        read_rules(&yaml_path, warnings)?
    } else {
        Vec::new()
    };
    let mut folders: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    folders.sort();
    let mut solutions = Vec::new();
    for folder in folders {
        let name = folder
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.starts_with('.') || name == "submissions.yaml" {
            continue;
        }
        if !folder.is_dir() {
            warnings.push(PackageError::new(
                &folder,
                "not in a verdict folder (submissions/<verdict>/); not listed",
            ));
            continue;
        }
        for item in crate::package::visible_entries(&folder, "cannot read")? {
            if let Some(s) = solution(item, &name, &rules, modern, warnings)? {
                solutions.push(s);
            }
        }
    }
    Ok(solutions)
}

/// The submission `item` of folder `name` with what it must get (`None`: nothing says, so it
/// is not listed).
fn solution(
    item: PathBuf,
    name: &str,
    rules: &[Rule],
    modern: bool,
    warnings: &mut Vec<PackageError>,
) -> Result<Option<Solution>, PackageError> {
    let rel = format!(
        "{name}/{}",
        item.file_name().unwrap_or_default().to_string_lossy()
    );
    let mut reqs = Vec::new();
    let mut why = Vec::new();
    let overridden = rules.iter().any(|r| r.folder && r.pattern == name);
    let mut entrypoint = None;
    let mut score = None;
    if let (Some(r), false) = (folder_requirement(name), overridden) {
        why.push(format!("folder submissions/{name}/"));
        reqs.push(r);
    }
    let any = ["AC", "WA", "TLE", "RTE"];
    if name == "partially_accepted" {
        // Legacy: accepted (by the graders) with a score below the maximum.
        why.push("folder submissions/partially_accepted/".into());
        reqs.push(Requirement::new(&any, &any));
        score = Some(Expected::Partial);
    }
    let mut test_rules = Vec::new();
    for r in rules {
        let hit = expand_braces(&r.pattern)
            .iter()
            .any(|p| glob_match(p, name) || glob_match(p, &rel));
        if hit {
            why.push(format!("submissions.yaml `{}`", r.pattern));
            reqs.push(r.requirement.clone());
            entrypoint = r.entrypoint.clone().or(entrypoint);
            score = r.score.or(score);
            test_rules.extend(r.tests.iter().cloned());
        }
    }
    if reqs.is_empty() {
        // A folder of no verdict: its sources' @EXPECTED_RESULTS@ say (BAPCtools and
        // DOMjudge judge `mixed/` so).
        let marked = marked_results(&item)?.is_some();
        if !marked {
            warnings.push(PackageError::new(&item, format!(
                "`{name}` is not a verdict folder of the specification and submissions.yaml says nothing of it (nor an @EXPECTED_RESULTS@ comment); not listed"
            )));
            return Ok(None);
        }
        why.push(format!("folder submissions/{name}/"));
        reqs.push(Requirement::new(&any, &any));
    }
    let mut expected: Vec<Verdict> = RUN_VERDICTS.to_vec();
    let mut permitted: Vec<Verdict> = RUN_VERDICTS.to_vec();
    for r in &reqs {
        let finals = r.finals();
        expected.retain(|v| finals.contains(v));
        permitted.retain(|v| r.permitted.contains(v));
    }
    // Legacy: the graders accept with a partial score. 2025-09 has no such folder (its own
    // scoring example does): a scoring problem's submission has a score, not a verdict, so only
    // the score is expected there.
    if score == Some(Expected::Partial) && !modern {
        expected = vec![AC];
    }
    let mut rule = format!(
        "{} (permitted {}; final {})",
        why.join(" + "),
        verdict_names(&permitted),
        verdict_names(&expected)
    );
    let marked = marked_results(&item)?;
    if let Some((listed, text)) = marked {
        expected = listed;
        rule = text;
    }
    Ok(Some(Solution {
        path: item,
        expected,
        permitted: (permitted.len() < RUN_VERDICTS.len()).then_some(permitted),
        rule,
        entrypoint,
        score,
        rules: test_rules,
        language: None,
    }))
}
