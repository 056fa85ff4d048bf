//! Conventions people expect: shell completions, `--color` and the colour variables, and
//! `judge run … --test NAME`.

use crate::harness::{fixture_problem, judge, program, Finished};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The program's path when it is installed.
fn installed(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn completion(shell: &str) -> (tempfile::TempDir, PathBuf, String) {
    let f = judge().args(["completions", shell]).output();
    f.expect_code(0);
    assert!(f.stderr().is_empty(), "{}", f.describe());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("judge.{shell}"));
    std::fs::write(&path, f.stdout()).unwrap();
    (dir, path, f.stdout())
}

/// Runs `program args`, asserts success, returns stdout.
fn shell(program: &Path, args: &[&str]) -> String {
    let out = Command::new(program).args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{} {args:?}: {:?}\n{text}\n{}",
        program.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn the_bash_completion_is_valid_and_completes_subcommands_flags_and_values() {
    let (_dir, path, _) = completion("bash");
    let bash = installed("bash").expect("bash is installed");
    let path = path.to_str().unwrap();
    shell(&bash, &["-n", path]);
    // What bash does on TAB: COMP_WORDS/COMP_CWORD, then the function with (command, word,
    // previous word).
    let complete = |words: &str, cword: usize, word: &str, previous: &str| {
        let script = format!(
            "source '{path}'; COMP_WORDS=({words}); COMP_CWORD={cword}; \
             _judge judge '{word}' '{previous}'; echo \"${{COMPREPLY[*]}}\""
        );
        shell(&bash, &["-c", &script]).trim().to_string()
    };
    assert_eq!(complete("judge ver", 1, "ver", "judge"), "verify");
    assert_eq!(complete("judge com", 1, "com", "judge"), "completions");
    assert_eq!(complete("judge run --te", 2, "--te", "run"), "--test");
    assert_eq!(
        complete("judge run --color ''", 3, "", "--color"),
        "auto always never"
    );
    let shells = complete("judge completions ''", 2, "", "completions");
    assert!(
        shells.ends_with(" bash elvish fish powershell zsh"),
        "{shells}"
    );
}

#[test]
fn the_zsh_completion_is_valid() {
    let (_dir, path, text) = completion("zsh");
    assert!(text.starts_with("#compdef judge\n"), "{text}");
    for word in [
        "_judge()",
        "'--color=[",
        "--test=[",
        "verify",
        "completions",
    ] {
        assert!(text.contains(word), "no {word:?} in\n{text}");
    }
    // zsh is often not installed; the structure above is checked either way.
    if let Some(zsh) = installed("zsh") {
        shell(&zsh, &["-n", path.to_str().unwrap()]);
    }
}

#[test]
fn the_fish_completion_is_valid_and_completes() {
    let (_dir, path, text) = completion("fish");
    for word in [
        "complete -c judge",
        "-l color",
        "-l test",
        "verify",
        "completions",
    ] {
        assert!(text.contains(word), "no {word:?} in\n{text}");
    }
    let Some(fish) = installed("fish") else {
        return;
    };
    let path = path.to_str().unwrap();
    shell(&fish, &["--no-execute", path]);
    let got = shell(
        &fish,
        &[
            "--no-config",
            "-c",
            &format!("source '{path}'; complete -C'judge ver'; complete -C'judge run --color '"),
        ],
    );
    let words: Vec<&str> = got.lines().filter_map(|l| l.split('\t').next()).collect();
    assert_eq!(words, ["verify", "always", "auto", "never"], "{got}");
}

#[test]
fn powershell_completion_and_an_unknown_shell() {
    let (_dir, _, text) = completion("powershell");
    assert!(
        text.contains("Register-ArgumentCompleter") && text.contains("'judge'"),
        "{text}"
    );
    let f = judge().args(["completions", "tcsh"]).output();
    f.expect_code(2)
        .expect_stderr_contains("invalid value 'tcsh'")
        .expect_stderr_contains("bash, elvish, fish, powershell, zsh");
}

/// `judge <args> run sum wa.c` on a terminal (a pty from `script`), with the colour variables
/// cleared and then `env` set; stdout and stderr both arrive on the pty.
fn on_a_terminal(env: &str, args: &str) -> Option<Finished> {
    let script = installed("script")?;
    let command = format!(
        "env -u NO_COLOR -u CLICOLOR -u CLICOLOR_FORCE TERM=xterm {env} '{}' {args} run '{}' '{}'",
        env!("CARGO_BIN_EXE_judge"),
        fixture_problem("sum").display(),
        program("wa.c").display()
    );
    Some(
        judge()
            .program(script)
            .args(["-qec", &command, "/dev/null"])
            .output(),
    )
}

/// `judge <args> run sum wa.c` into a pipe, with the colour variables set as in `env`.
fn piped(env: &[&str], args: &[&str]) -> Finished {
    judge()
        .program("/usr/bin/env")
        .args(["-u", "NO_COLOR", "-u", "CLICOLOR", "-u", "CLICOLOR_FORCE"])
        .args(env)
        .arg(env!("CARGO_BIN_EXE_judge"))
        .args(args)
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(program("wa.c"))
        .output()
}

fn painted(f: &Finished) -> bool {
    f.expect_code(1).expect_stdout_contains("WA (wrong answer)");
    f.stdout().contains('\x1b') || f.stderr().contains('\x1b')
}

#[test]
fn color_never_and_no_color_print_no_escape_codes_even_on_a_terminal() {
    let Some(auto) = on_a_terminal("", "") else {
        return;
    };
    assert!(painted(&auto), "a terminal is painted: {}", auto.describe());
    for (env, args) in [
        ("", "--color never"),
        ("NO_COLOR=1", ""),
        ("CLICOLOR=0", ""),
        ("CLICOLOR_FORCE=1", "--color=never"),
        ("TERM=dumb", ""),
    ] {
        let f = on_a_terminal(env, args).unwrap();
        assert!(!painted(&f), "{env} {args}: {}", f.describe());
    }
    let f = on_a_terminal("NO_COLOR=1", "--color always").unwrap();
    assert!(painted(&f), "the flag beats NO_COLOR: {}", f.describe());
}

#[test]
fn color_always_and_clicolor_force_paint_a_pipe() {
    let f = piped(&[], &[]);
    assert!(!painted(&f), "{}", f.describe());
    let f = piped(&[], &["--color", "always"]);
    assert!(f.stdout().contains("\x1b[31m"), "{}", f.describe());
    assert!(f.stderr().contains('\x1b'), "{}", f.describe());
    let f = piped(&["CLICOLOR_FORCE=1"], &[]);
    assert!(painted(&f), "{}", f.describe());
    let f = piped(&["CLICOLOR_FORCE=1", "NO_COLOR=1"], &[]);
    assert!(
        !painted(&f),
        "NO_COLOR beats CLICOLOR_FORCE: {}",
        f.describe()
    );
}

#[test]
fn help_follows_the_color_flag() {
    let f = judge().args(["--color", "always", "--help"]).output();
    f.expect_code(0);
    assert!(f.stdout().contains('\x1b'), "{}", f.describe());
    let f = judge().args(["run", "--help", "--color=never"]).output();
    f.expect_code(0)
        .expect_stdout_contains("Examples:\n  judge run ");
    assert!(!f.stdout().contains('\x1b'), "{}", f.describe());
    let f = judge().arg("--help").output();
    f.expect_code(0)
        .expect_stdout_contains("JUDGE_LANGUAGES")
        .expect_stdout_contains("CLICOLOR_FORCE")
        .expect_stdout_contains("\n  141  ");
}

#[test]
fn run_test_judges_only_the_named_tests() {
    let run = |args: &[&str]| {
        judge()
            .arg("run")
            .arg(fixture_problem("sum"))
            .arg(program("wa.c"))
            .args(args)
            .output()
    };
    // wa.c fails only test 10.
    let doc = run(&["--json", "--test", "sample*", "--test", "2"]).expect_verdict("AC");
    let names: Vec<&str> = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["sample-1", "2"]);
    let doc = run(&["--json", "--test=1?"]).expect_verdict("WA");
    assert_eq!(doc["tests"].as_array().unwrap().len(), 1);

    let f = run(&["--test", "2"]);
    f.expect_code(0)
        .expect_stderr_contains("note: judging 1 of 3 tests (--test)");

    let f = run(&["--test", "sample-1", "--test", "nope"]);
    f.expect_code(2).expect_stderr_contains(
        "/sum: no test matches --test `nope`; the tests are: sample-1, 2, 10\n  hint: ",
    );
    assert!(f.stdout().is_empty(), "{}", f.describe());
}
