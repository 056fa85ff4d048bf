//! `judge inspect <PROBLEM> [--json]`: the problem as the judge will use it — format, limits with
//! units and where each came from, the tests in judging order with their groups, the checker and
//! its protocol, the validators, the package's solutions with the verdicts they must get and the
//! rule that says so, and what the package says that the judge does not read.

use super::exit;
use judge_core::package::{self, CheckerSpec, Problem, Program, Protocol};
use judge_model::units::{mib, secs};
use serde_json::{json, Value};
use std::path::Path;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Problem package: a directory (problem.toml, problem.yaml + data/, or problem.xml), or the
    /// slug of a folder under ./problems.
    problem: String,
    /// Print one JSON object on stdout instead of the text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let dir = package::locate(&args.problem)?;
    let mut problem = Problem::load(&dir)?;
    judge_core::setter::solutions::read_native(&mut problem);
    if args.json {
        judge_report::outln!("{}", document(&problem));
    } else {
        judge_report::out!("{}", render(&problem));
    }
    Ok(exit::OK)
}

/// A path relative to the package folder, for display.
fn rel(problem: &Problem, path: &Path) -> String {
    path.strip_prefix(&problem.dir)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn protocol_text(p: Protocol, checker: bool) -> &'static str {
    match (p, checker) {
        (Protocol::Testlib, true) => "testlib: checker input output answer; exit 0 AC, 1 WA, 2 PE, 3 judge error",
        (Protocol::Kattis, true) => "kattis: validator input answer feedback_dir [args] < output; exit 42 AC, 43 WA, anything else (0 too) a judge error",
        (Protocol::Testlib, false) => "testlib: input on stdin; exit 0 = valid",
        (Protocol::Kattis, false) => "kattis: input on stdin; exit 42 = valid, 43 = invalid",
    }
}

fn interactor_text(p: Protocol) -> &'static str {
    match p {
        Protocol::Kattis => "kattis: interactor input answer feedback_dir [args], talking to the solution on its stdin and stdout; exit 42 AC, 43 WA, anything else a judge error",
        Protocol::Testlib => "testlib: interactor input tout answer, talking to the solution on its stdin and stdout; exit 0 then the checker checks tout, 1 WA, 2 PE, 3 judge error",
    }
}

fn program_json(problem: &Problem, p: &Program, checker: bool) -> Value {
    json!({
        "source": rel(problem, &p.source),
        "protocol": p.protocol.name(),
        "protocol_rule": protocol_text(p.protocol, checker),
        "helpers": p.helpers.iter().map(|h| rel(problem, h)).collect::<Vec<_>>(),
    })
}

/// The JSON document (schema 1).
pub fn document(problem: &Problem) -> Value {
    let l = &problem.limits;
    let checker = match &problem.checker {
        CheckerSpec::Builtin(b) => json!({
            "kind": "builtin",
            "name": package::builtin_name(b),
        }),
        CheckerSpec::Custom(p) => {
            let mut v = program_json(problem, p, true);
            v["kind"] = json!("custom");
            v
        }
    };
    json!({
        "schema": 1,
        "problem": problem.slug,
        "name": problem.name,
        "path": problem.dir.display().to_string(),
        "format": problem.format.name(),
        "limits": {
            "time_ms": l.time.as_secs_f64() * 1000.0,
            "time_source": problem.origin.time,
            "wall_ms": l.wall.as_secs_f64() * 1000.0,
            "memory_bytes": l.memory,
            "memory_source": problem.origin.memory,
            "stack_bytes": l.stack,
            "output_bytes": l.output,
            "output_source": problem.origin.output,
        },
        "input_file": problem.io.input,
        "output_file": problem.io.output,
        "checker": checker,
        "interactor": problem.interactor.as_ref().map(|p| {
            let mut v = program_json(problem, p, true);
            v["protocol_rule"] = json!(interactor_text(p.protocol));
            v
        }),
        "validators": problem.validators.iter().map(|v| program_json(problem, v, false)).collect::<Vec<_>>(),
        "groups": problem.groups.iter().map(|g| json!({
            "name": g.name,
            "points": g.points,
            "points_policy": g.points_policy,
            "dependencies": g.dependencies,
        })).collect::<Vec<_>>(),
        "scoring": problem.scoring.as_ref().map(|s| json!({
            "max_score": s.root.max_score(),
            "groups": s.outline().into_iter().map(|(_, n)| json!({
                "name": n.name,
                "max_score": n.max_score(),
                "aggregation": n.aggregate.name(),
                "requires": n.requires,
                "tests": n.tests().len(),
            })).collect::<Vec<_>>(),
        })),
        "validation_passes": problem.passes,
        "tests": problem.tests.iter().map(|t| json!({
            "name": t.name,
            "group": t.group,
            "sample": t.sample,
            "input": rel(problem, &t.input),
            "answer": rel(problem, &t.answer),
            "checker_args": t.checker_args,
            "validator_args": t.validator_args,
            "points": t.points,
            "generate": t.generate,
            "answer_from_main_solution": t.answer_missing,
            "interaction": t.interaction.as_ref().map(|p| rel(problem, p)),
        })).collect::<Vec<_>>(),
        "solutions": problem.solutions.iter().map(|sol| json!({
            "file": rel(problem, &sol.path),
            "expected": sol.expected.iter().map(|v| v.code()).collect::<Vec<_>>(),
            "permitted": sol.permitted.as_ref().map(|p| p.iter().map(|v| v.code()).collect::<Vec<_>>()),
            "rule": sol.rule,
        })).collect::<Vec<_>>(),
        "warnings": problem.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
    })
}

/// The text for people.
pub fn render(problem: &Problem) -> String {
    let mut s = String::new();
    let mut line = |text: String| {
        s.push_str(&text);
        s.push('\n');
    };
    render_limits(problem, &mut line);
    render_jury(problem, &mut line);
    render_scoring(problem, &mut line);
    render_tests(problem, &mut line);
    render_exchanges(problem, &mut line);
    render_solutions(problem, &mut line);
    s
}

/// The problem, its format, its limits with where each came from, and its input and output.
fn render_limits(problem: &Problem, line: &mut dyn FnMut(String)) {
    let l = &problem.limits;
    line(format!("problem    {} ({})", problem.slug, problem.name));
    line(format!("path       {}", problem.dir.display()));
    line(format!("format     {}", problem.format.name()));
    // The values in one column, their sources after it.
    let values = [secs(l.time), secs(l.wall), mib(l.memory), mib(l.output)];
    let w = values.iter().map(|v| v.chars().count()).max().unwrap_or(0);
    let [time, wall, memory, output] = values;
    line(format!(
        "time       {time:<w$}   {}",
        from(&problem.origin.time)
    ));
    line(format!("wall time  {wall:<w$}   (3 x time + 1 s)"));
    line(format!(
        "memory     {memory:<w$}   {}",
        from(&problem.origin.memory)
    ));
    line(format!(
        "output     {output:<w$}   {}",
        from(&problem.origin.output)
    ));
    line(format!(
        "input      {}",
        problem
            .io
            .input
            .as_ref()
            .map_or("stdin".to_string(), |f| format!(
                "file `{f}` in the working folder"
            ))
    ));
    line(format!(
        "output     {}",
        problem
            .io
            .output
            .as_ref()
            .map_or("stdout".to_string(), |f| format!(
                "file `{f}` in the working folder"
            ))
    ));
}

/// Where a limit came from: "from problem.toml …", or the origin itself when it says the
/// package does not state the limit ("not in the package: `judge run` derives it …").
fn from(origin: &str) -> String {
    if origin.starts_with("not in the package") {
        origin.to_string()
    } else {
        format!("from {origin}")
    }
}

/// The interactor, the checker and the validators, with their protocols.
fn render_jury(problem: &Problem, line: &mut dyn FnMut(String)) {
    if let Some(p) = &problem.interactor {
        line(format!("interactor {}", rel(problem, &p.source)));
        line(format!(
            "           protocol {}",
            interactor_text(p.protocol)
        ));
    }
    match &problem.checker {
        _ if problem
            .interactor
            .as_ref()
            .is_some_and(|p| p.protocol == Protocol::Kattis) =>
        {
            line("checker    none: the interactor decides".into())
        }
        CheckerSpec::Builtin(b) => {
            line(format!("checker    built-in {}", package::builtin_name(b)))
        }
        CheckerSpec::Custom(p) => {
            line(format!("checker    {}", rel(problem, &p.source)));
            line(format!(
                "           protocol {}",
                protocol_text(p.protocol, true)
            ));
            if !p.helpers.is_empty() {
                let h: Vec<String> = p.helpers.iter().map(|h| rel(problem, h)).collect();
                line(format!("           built with {}", h.join(", ")));
            }
        }
    }
    if problem.validators.is_empty() {
        line("validators none".into());
    }
    for (i, v) in problem.validators.iter().enumerate() {
        let head = if i == 0 { "validators" } else { "          " };
        line(format!(
            "{head} {}   protocol {}",
            rel(problem, &v.source),
            protocol_text(v.protocol, false)
        ));
    }
}

/// The groups and the scoring tree, and the passes of a multi-pass problem.
fn render_scoring(problem: &Problem, line: &mut dyn FnMut(String)) {
    if !problem.groups.is_empty() {
        let names: Vec<String> = problem
            .groups
            .iter()
            .map(|g| match g.points {
                Some(p) => format!("{} ({p} points)", g.name),
                None => g.name.clone(),
            })
            .collect();
        line(format!("groups     {}", names.join(", ")));
    }
    if let Some(scoring) = &problem.scoring {
        let total = scoring
            .root
            .max_score()
            .map_or("unbounded".to_string(), judge_model::score::show);
        let outline = scoring.outline();
        if outline.is_empty() {
            let root = &scoring.root;
            line(format!(
                "scoring    {total} points in all, {} over {} tests, no groups",
                root.aggregate.name(),
                root.tests().len()
            ));
        } else {
            line(format!("scoring    {total} points in all, by group:"));
        }
        let width = outline
            .iter()
            .map(|(d, n)| 2 * d + n.name.chars().count())
            .max()
            .unwrap_or(0);
        for (depth, n) in outline {
            let name = format!("{}{}", "  ".repeat(depth), n.name);
            let max = n
                .max_score()
                .map_or("unbounded".to_string(), judge_model::score::show);
            let mut how = format!(
                "{}, {} test{}",
                n.aggregate.name(),
                n.tests().len(),
                if n.tests().len() == 1 { "" } else { "s" }
            );
            if !n.requires.is_empty() {
                how.push_str(&format!(", requires {}", n.requires.join(", ")));
            }
            line(format!("    {name:<width$}  {max:>9}  {how}"));
        }
    }
    if let Some(passes) = problem.passes {
        line(format!("passes     up to {passes} per test (multi-pass: the output validator's nextpass.in is the next input)"));
    }
}

/// The tests in judging order, with what is special about each.
fn render_tests(problem: &Problem, line: &mut dyn FnMut(String)) {
    line(format!(
        "tests      {} in judging order:",
        problem.tests.len()
    ));
    let files =
        |t: &package::TestCase| format!("{} + {}", rel(problem, &t.input), rel(problem, &t.answer));
    let name_w = problem
        .tests
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(0);
    let files_w = problem
        .tests
        .iter()
        .map(|t| files(t).chars().count())
        .max()
        .unwrap_or(0);
    for (i, t) in problem.tests.iter().enumerate() {
        let mut notes = Vec::new();
        if t.sample {
            notes.push("sample".to_string());
        }
        if !t.group.is_empty() {
            notes.push(format!("group {}", t.group));
        }
        if let Some(p) = t.points {
            notes.push(format!("{p} points"));
        }
        if let Some(cmd) = &t.generate {
            notes.push(format!("not in the package: made by `{}`", cmd.join(" ")));
        }
        if t.answer_missing {
            notes.push("answer not in the package: made by the main solution".into());
        }
        if !t.checker_args.is_empty() {
            notes.push(format!("checker args: {}", t.checker_args.join(" ")));
        }
        if !t.validator_args.is_empty() {
            notes.push(format!("validator args: {}", t.validator_args.join(" ")));
        }
        if let Some(p) = &t.interaction {
            notes.push(format!("exchange {}", rel(problem, p)));
        }
        let row = if notes.is_empty() {
            format!("  {:>3}  {:<name_w$}  {}", i + 1, t.name, files(t))
        } else {
            format!(
                "  {:>3}  {:<name_w$}  {:<files_w$}   [{}]",
                i + 1,
                t.name,
                files(t),
                notes.join("; ")
            )
        };
        line(row);
    }
}

/// The sample exchanges of an interactive problem, as the statement would show them.
fn render_exchanges(problem: &Problem, line: &mut dyn FnMut(String)) {
    for t in problem.tests.iter().filter(|t| t.sample) {
        let Some(path) = &t.interaction else {
            continue;
        };
        line(format!(
            "exchange   {} (< judge to solution, > solution to judge):",
            t.name
        ));
        match judge_core::engine::interactive::read_interaction(path) {
            Ok(lines) => {
                let shown = judge_model::transcript::TRANSCRIPT_LINES;
                let lines = judge_core::engine::interactive::marked_lines(&lines);
                for text in lines.iter().take(shown) {
                    line(format!("    {text}"));
                }
                if lines.len() > shown {
                    line(format!("    … {} more lines", lines.len() - shown));
                }
            }
            Err(why) => line(format!("    {why}")),
        }
    }
}

/// The package's solutions with their expected verdicts, and its warnings.
fn render_solutions(problem: &Problem, line: &mut dyn FnMut(String)) {
    if !problem.solutions.is_empty() {
        line(format!(
            "solutions  {} with their expected verdicts:",
            problem.solutions.len()
        ));
        let expects = |sol: &package::Solution| {
            let expected: Vec<&str> = sol.expected.iter().map(|v| v.code()).collect();
            if expected.is_empty() {
                "nothing (no verdict satisfies the rules)".to_string()
            } else {
                expected.join(" or ")
            }
        };
        let path_w = problem
            .solutions
            .iter()
            .map(|sol| rel(problem, &sol.path).chars().count())
            .max()
            .unwrap_or(0);
        let expects_w = problem
            .solutions
            .iter()
            .map(|sol| expects(sol).chars().count())
            .max()
            .unwrap_or(0);
        for sol in &problem.solutions {
            line(format!(
                "  {:<path_w$}  expects {:<expects_w$}   ({})",
                rel(problem, &sol.path),
                expects(sol),
                sol.rule
            ));
        }
    }
    if !problem.warnings.is_empty() {
        line(format!("warnings   {}:", problem.warnings.len()));
        for w in &problem.warnings {
            line(format!("  {w}"));
        }
    }
}
