//! Choosing some of a problem's tests by name (`judge run … --test NAME`).

use super::{PackageError, TestCase};
use std::path::Path;

/// How many test names an error lists before it says how many more there are.
const LISTED: usize = 20;

/// The tests whose names match one of `patterns` (an exact name, or a glob with `*`, `?` and
/// `[abc]`/`[a-z]`/`[!abc]`), in the problem's order, each once. No patterns: every test.
/// A pattern that matches no test is an error naming the package and listing the names.
pub fn select_tests(
    dir: &Path,
    tests: &[TestCase],
    patterns: &[String],
) -> Result<Vec<TestCase>, PackageError> {
    if patterns.is_empty() {
        return Ok(tests.to_vec());
    }
    let unmatched: Vec<&String> = patterns
        .iter()
        .filter(|p| !tests.iter().any(|t| matches(p, &t.name)))
        .collect();
    if !unmatched.is_empty() {
        let which = unmatched
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut names: Vec<&str> = tests.iter().take(LISTED).map(|t| t.name.as_str()).collect();
        if tests.len() > LISTED {
            names.push("…");
        }
        let listing = match tests.len() {
            0 => "the problem has no tests".to_string(),
            n if n > LISTED => format!("the tests are: {} ({n} in all)", names.join(", ")),
            _ => format!("the tests are: {}", names.join(", ")),
        };
        let example = tests.first().map_or("sample-1", |t| t.name.as_str());
        return Err(PackageError::new(
            dir,
            format!("no test matches --test {which}; {listing}"),
        )
        .hint(format!("give a test's name as listed, without .in (`--test {example}`), or a quoted pattern (`--test 'sample*'`)")));
    }
    Ok(tests
        .iter()
        .filter(|t| patterns.iter().any(|p| matches(p, &t.name)))
        .cloned()
        .collect())
}

/// A name given exactly always selects its test, even when it holds `[` or `*`.
fn matches(pattern: &str, name: &str) -> bool {
    pattern == name || glob_match(pattern, name)
}

/// Whether `name` matches the glob `pattern`: `*` any run of characters, `?` one character,
/// `[…]` one of a set (ranges `a-z`, negated with `!` or `^`); everything else literally.
/// A `[` without its `]` is literal.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Iterative matching with one backtrack point (the last `*`): linear in practice.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
                continue;
            }
            Some('?') => Some(1),
            Some('[') => match class(&p[pi..], n[ni]) {
                Some((true, len)) => Some(len),
                Some((false, _)) => None,
                None => (n[ni] == '[').then_some(1),
            },
            Some(&c) => (c == n[ni]).then_some(1),
            None => None,
        };
        match (step, star) {
            (Some(len), _) => {
                pi += len;
                ni += 1;
            }
            (None, Some((sp, sn))) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            (None, None) => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// A `[…]` class at the start of `p`: whether `c` is in it, and the class's length in the
/// pattern; `None` when the `[` has no closing `]`.
fn class(p: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negated = matches!(p.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut found = false;
    let mut first = true;
    loop {
        let lo = *p.get(i)?;
        if lo == ']' && !first {
            return Some((found != negated, i + 1));
        }
        first = false;
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&hi| hi != ']') {
            let hi = p[i + 2];
            found |= lo <= c && c <= hi;
            i += 3;
        } else {
            found |= lo == c;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn tests(names: &[&str]) -> Vec<TestCase> {
        names
            .iter()
            .map(|n| TestCase {
                name: n.to_string(),
                input: PathBuf::from(format!("tests/{n}.in")),
                answer: PathBuf::from(format!("tests/{n}.ans")),
                sample: n.starts_with("sample"),
                ..TestCase::default()
            })
            .collect()
    }

    fn names(t: &[TestCase]) -> Vec<&str> {
        t.iter().map(|t| t.name.as_str()).collect()
    }

    #[test]
    fn globs() {
        for (p, n) in [
            ("*", ""),
            ("*", "abc"),
            ("a*", "abc"),
            ("*c", "abc"),
            ("a*c", "abbbc"),
            ("a?c", "abc"),
            ("sample-*", "sample-1"),
            ("*-*-*", "a-b-c"),
            ("[0-9]", "7"),
            ("[!0-9]x", "ax"),
            ("[^ab]", "c"),
            ("[]]", "]"),
            ("[a-]", "-"),
            ("a[", "a["),
            ("10", "10"),
            ("ünï*", "ünïcode"),
        ] {
            assert!(glob_match(p, n), "{p:?} should match {n:?}");
        }
        for (p, n) in [
            ("a", "ab"),
            ("ab", "a"),
            ("?", ""),
            ("a*c", "abd"),
            ("[0-9]", "a"),
            ("[!0-9]", "5"),
            ("1", "10"),
            ("sample-*", "sample"),
            ("*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
        ] {
            assert!(!glob_match(p, n), "{p:?} should not match {n:?}");
        }
    }

    #[test]
    fn selection_keeps_the_problem_order_and_each_test_once() {
        let all = tests(&["sample-1", "sample-2", "1", "2", "10"]);
        let pick = |p: &[&str]| {
            let p: Vec<String> = p.iter().map(|s| s.to_string()).collect();
            select_tests(Path::new("sum"), &all, &p)
        };
        assert_eq!(names(&pick(&[]).unwrap()).len(), 5);
        assert_eq!(
            names(&pick(&["10", "sample-2"]).unwrap()),
            ["sample-2", "10"]
        );
        assert_eq!(
            names(&pick(&["sample*", "sample-1", "1"]).unwrap()),
            ["sample-1", "sample-2", "1"]
        );
        assert_eq!(names(&pick(&["?"]).unwrap()), ["1", "2"]);
        let odd = tests(&["a[1]", "a1", "b*"]);
        let p = |p: &str| select_tests(Path::new("x"), &odd, &[p.to_string()]).unwrap();
        assert_eq!(names(&p("a[1]")), ["a[1]", "a1"]);
        assert_eq!(names(&p("b*")), ["b*"]);
    }

    #[test]
    fn an_unknown_name_is_an_error_listing_the_tests() {
        let all = tests(&["sample-1", "1", "2"]);
        let p = vec!["1".to_string(), "3".to_string(), "x*".to_string()];
        let e = select_tests(Path::new("sum"), &all, &p)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "sum: no test matches --test `3`, `x*`; the tests are: sample-1, 1, 2\n  \
             hint: give a test's name as listed, without .in (`--test sample-1`), or a quoted \
             pattern (`--test 'sample*'`)"
        );
        let many: Vec<String> = (1..=30).map(|i| i.to_string()).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let e = select_tests(Path::new("sum"), &tests(&many), &["x".to_string()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("the tests are: 1, 2, 3,"), "{e}");
        assert!(e.contains(", 20, … (30 in all)\n"), "{e}");
    }
}
