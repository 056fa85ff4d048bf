//! The raw readers: key paths in errors, unknown keys, the lenient scalars.

use super::kattis::{Current, GroupConfig, Legacy, Name, Submission};
use super::*;

fn read<T: DeserializeOwned>(text: &str) -> Result<Read<T>, PackageError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("problem.yaml");
    std::fs::write(&path, text).unwrap();
    read_yaml(&path, &|key| format!("fix `{key}`"))
}

fn unknown<T: DeserializeOwned>(text: &str) -> Vec<String> {
    let read = read::<T>(text).unwrap();
    read.unknown.iter().map(|k| k.to_string()).collect()
}

#[test]
fn a_bad_type_names_its_key_path_line_and_column() {
    let e = read::<Legacy>("name: x\nlimits:\n  memory: 64\n  time_multiplier: x\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with(
            "problem.yaml:4:20: limits.time_multiplier: invalid type: string \"x\", expected a number\n  hint: fix `limits.time_multiplier`"
        ),
        "{e}"
    );
    let e = read::<Current>("name: [a, b]\n").unwrap_err().to_string();
    assert!(
        e.contains("problem.yaml:1:7: name: invalid type: sequence, expected a name, or a map of language codes to names"),
        "{e}"
    );
}

#[test]
fn unknown_keys_are_kept_with_their_paths_and_known_ones_are_not() {
    let keys = unknown::<Legacy>(
        "name: x\nauthor: me\nlicense: cc by-sa\nrights_owner: us\nuuid: 1\nkeywords: [a]\ncolour: blue\nlimits:\n  code: 128\n  tme_multiplier: 3\n",
    );
    assert_eq!(keys, ["colour", "limits.tme_multiplier"]);
    let keys = unknown::<Current>(
        "name: {en: x, de: y}\ncredits: {authors: [a]}\nembargo_until: 2030-01-01\nlimits:\n  time_multipliers:\n    ac_to_time_limit: 2\n    tle: 3\nsource: [{name: NWERC, url: x, year: 2024}]\n",
    );
    assert_eq!(keys, ["limits.time_multipliers.tle", "source[0].year"]);
    // A key of the other version is unknown.
    assert_eq!(unknown::<Current>("author: me\n"), ["author"]);
}

#[test]
fn numbers_in_quotes_words_in_one_string_and_names_of_languages_are_read() {
    let y =
        read::<Legacy>("limits:\n  memory: '512'\ntype: scoring\nvalidation: custom interactive\n")
            .unwrap()
            .value;
    assert_eq!(y.limits.unwrap().memory, Some(Number(512.0)));
    assert_eq!(y.validation, Some(Text("custom interactive".into())));
    let y = read::<Current>("type: pass-fail interactive\nname: {de: Zahl, en: Number}\n")
        .unwrap()
        .value;
    assert_eq!(y.kind.unwrap().0, ["pass-fail", "interactive"]);
    assert_eq!(y.name.as_ref().and_then(Name::pick), Some("Number"));
    let g = read::<GroupConfig>(
        "output_validator_args: [float_tolerance, 1e-6, 3]\ninput_validator_args:\n",
    )
    .unwrap()
    .value;
    assert_eq!(
        g.output_validator_args.unwrap().0,
        ["float_tolerance", "1e-6", "3"]
    );
    assert!(
        g.input_validator_args.is_some(),
        "given empty: no arguments, not left out"
    );
    // An empty file is an empty mapping.
    assert!(read::<GroupConfig>("# nothing\n")
        .unwrap()
        .unknown
        .is_empty());
}

#[test]
fn a_submissions_group_rule_keeps_its_unknown_keys_by_path() {
    let r = read::<Ordered<Submission>>(
        "a.py:\n  permitted: [AC]\n  colour: red\n  language: python\n  sample:\n    required: [AC]\n    shade: 3\n",
    )
    .unwrap();
    let keys: Vec<String> = r.unknown.iter().map(|k| k.to_string()).collect();
    assert_eq!(keys, ["a.py.sample.shade"]);
    let (pattern, s) = &r.value.0[0];
    assert_eq!(pattern, "a.py");
    assert_eq!(s.unknown, ["colour"]);
    assert_eq!(s.groups[0].0, "sample");
    let e = read::<Ordered<Submission>>("a.py:\n  sample:\n    score: lots\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(
            "a.py.sample.score: invalid type: string \"lots\", expected a number or a list of two"
        ),
        "{e}"
    );
}
