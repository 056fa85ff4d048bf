//! `judge new <slug>`: a complete starter package (sum of n integers) that `judge verify` accepts
//! at once, to be edited into the real problem.

use super::SetterError;
use std::path::{Path, PathBuf};

const PROBLEM_TOML: &str = r#"# The problem's display name and, optionally, where it comes from.
name = "NAME"
# source = "Contest 2026, problem A"

[limits]
time_limit = 1.0      # seconds of CPU time (all threads and children)
memory = 256          # MiB; the stack may use all of it
# wall_time_limit = 4.0 # seconds of wall-clock time; default 3 x time_limit + 1
# output = 64           # MiB of output; default 64
# stack = 256           # MiB; default = memory

[checker]
kind = "tokens"       # exact | lines | tokens | float | custom
# float_absolute_tolerance = 1e-6   # kind = "float": accepted if within either tolerance
# float_relative_tolerance = 1e-6
# source = "checker.rs"             # kind = "custom": checker <input> <output> <answer>; exit 0 AC, 1 WA, 2 PE, 3 fail
"#;

const STATEMENT: &str = r#"# NAME

Write the story here.

## Input

The first line holds $n$ ($1 \le n \le 100$). The second line holds $n$ integers $a_i$
($|a_i| \le 10^9$), separated by single spaces.

## Output

Print $a_1 + \dots + a_n$.

## Samples

Input:
```
3
1 2 3
```
Output:
```
6
```
"#;

const VALIDATOR: &str = r#"# Input validator: reads one test input on stdin; exit 0 when valid, otherwise exit 1 with the
# reason on stderr (a failed `assert` rejects too). Any other uncaught exception is a crash of the
# validator, reported as a judge error. Check every constraint of the statement and the format.
import re
import sys


def fail(why):
    sys.stderr.write(why + "\n")
    sys.exit(1)


data = sys.stdin.buffer.read().decode("ascii", errors="replace")
if not data.endswith("\n"):
    fail("the input must end with a newline")
lines = data[:-1].split("\n")
if len(lines) != 2:
    fail(f"expected 2 lines, found {len(lines)}")
if not re.fullmatch(r"[1-9][0-9]*", lines[0]):
    fail(f"line 1: `{lines[0]}` is not a positive integer")
n = int(lines[0])
if not 1 <= n <= 100:
    fail(f"n = {n} is out of range [1, 100]")
numbers = lines[1].split(" ")
if len(numbers) != n:
    fail(f"line 2: expected {n} numbers separated by single spaces, found {len(numbers)}")
for x in numbers:
    if not re.fullmatch(r"-?(0|[1-9][0-9]*)", x) or x == "-0":
        fail(f"line 2: `{x}` is not an integer")
    if abs(int(x)) > 10**9:
        fail(f"line 2: {x} is out of range")
"#;

const GENERATOR: &str = r#"# Generator: prints one test input. Arguments: seed, size (the largest n).
# All randomness comes from the seed, so the same arguments always print the same bytes.
import random
import sys

seed, size = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
n = rng.randint(1, max(1, min(size, 100)))
print(n)
print(" ".join(str(rng.randint(-10**9, 10**9)) for _ in range(n)))
"#;

const RECIPE: &str = r#"# Generated tests: `judge gen` runs each generator with its arguments and writes tests/NAME.in,
# then every tests/NAME.ans from the reference solution (the first file in accepted/).
# generator_time_limit = 5.0   # seconds of CPU time per generator run (default 5)
[[test]]
name = "random-1"
generator = "generator.py"
args = ["1", "10"]

[[test]]
name = "random-2"
generator = "generator.py"
args = ["2", "100"]

[[test]]
name = "max-1"
generator = "generator.py"
args = ["3", "100"]
"#;

const REFERENCE: &str = r#"import sys

data = sys.stdin.read().split()
n = int(data[0])
print(sum(int(x) for x in data[1 : 1 + n]))
"#;

/// Writes the starter package `problems/<slug>` and `solutions/<slug>` under `root`. Returns the
/// package folder. Refuses to overwrite anything.
pub fn scaffold(root: &Path, slug: &str) -> Result<PathBuf, SetterError> {
    if slug.is_empty()
        || !slug
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(SetterError::Other(format!(
            "`{slug}` is not a good slug\n  hint: use lowercase letters, digits and '-', e.g. `sum-of-numbers`"
        )));
    }
    let pkg = root.join("problems").join(slug);
    let sols = root.join("solutions").join(slug);
    for p in [&pkg, &sols] {
        if p.exists() {
            return Err(SetterError::Other(format!(
                "{}: already exists\n  hint: choose another slug or remove it first",
                p.display()
            )));
        }
    }
    let name = slug
        .split('-')
        .map(capitalise)
        .collect::<Vec<_>>()
        .join(" ");
    let files: [(PathBuf, String); 9] = [
        (
            pkg.join("problem.toml"),
            PROBLEM_TOML.replace("NAME", &name),
        ),
        (pkg.join("statement.md"), STATEMENT.replace("NAME", &name)),
        (pkg.join("validator.py"), VALIDATOR.to_string()),
        (pkg.join("generator.py"), GENERATOR.to_string()),
        (pkg.join("tests.toml"), RECIPE.to_string()),
        (pkg.join("tests/sample-1.in"), "3\n1 2 3\n".to_string()),
        (pkg.join("tests/sample-1.ans"), "6\n".to_string()),
        (pkg.join(".gitignore"), ".judge-cache.json\n".to_string()),
        (sols.join("accepted/reference.py"), REFERENCE.to_string()),
    ];
    for (path, text) in files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| SetterError::Other(format!("{}: {e}", parent.display())))?;
        }
        std::fs::write(&path, text)
            .map_err(|e| SetterError::Other(format!("{}: {e}", path.display())))?;
    }
    Ok(pkg)
}

fn capitalise(word: &str) -> String {
    let mut c = word.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
