//! `judge doctor`: each isolation layer, active or missing, why, and how to enable it; and what
//! of the host programs can see (the system view and each language's paths).

use super::exit;
use judge_core::lang::{self, Language, Languages, Step};
use judge_sandbox::worker::SystemView;
use judge_sandbox::{Layer, LimitMechanism, Sandbox};
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the layers as JSON.
    #[arg(long)]
    json: bool,
    /// Turn on the kernel's cgroup favordynmods mode (root; kernel-wide, until reboot): runs
    /// then never wait to join their cgroup.
    #[arg(long)]
    tune: bool,
}

pub fn run(args: Args, languages: Option<&Path>) -> anyhow::Result<i32> {
    let tuned = if args.tune {
        Some(Sandbox::tune().map_err(anyhow::Error::msg)?)
    } else {
        None
    };
    let languages = Languages::load(languages)?;
    let sandbox = Sandbox::new()?;
    let layers = sandbox.layers();
    let notes = sandbox.notes();
    let view = sandbox.system_view();
    let paths: Vec<(&Language, [Listed; 2])> = languages
        .all()
        .iter()
        .map(|l| (l, [listed(l, Step::Compile), listed(l, Step::Run)]))
        .collect();
    let limits = sandbox.limits();
    if args.json {
        print_json(
            &sandbox,
            &layers,
            &notes,
            &limits,
            view.as_ref(),
            &paths,
            tuned.as_deref(),
        )?;
        return Ok(exit::OK);
    }
    print_layers(&sandbox, &layers, &notes, &limits, tuned.as_deref());
    print_view(view.as_ref(), &paths);
    Ok(exit::OK)
}

/// `--json`: one document with the layers, limits, speed notes and what programs see.
fn print_json(
    sandbox: &Sandbox,
    layers: &[Layer],
    notes: &[Layer],
    limits: &[LimitMechanism],
    view: Option<&SystemView>,
    paths: &[(&Language, [Listed; 2])],
    tuned: Option<&str>,
) -> anyhow::Result<()> {
    let visible = view.map(|v| {
        let system: Vec<&PathBuf> = v.dirs.iter().chain(&v.files).chain(&v.devices).collect();
        let links: serde_json::Map<String, serde_json::Value> = v
            .links
            .iter()
            .map(|(l, t)| (l.display().to_string(), t.display().to_string().into()))
            .collect();
        let languages: Vec<serde_json::Value> = paths
            .iter()
            .map(|(l, [compile, run])| {
                let mut missing: Vec<&String> = compile.missing.iter().collect();
                missing.extend(run.missing.iter().filter(|m| !compile.missing.contains(m)));
                serde_json::json!({
                    "name": l.name,
                    "compile": compile.shown,
                    "run": run.shown,
                    "missing": missing,
                })
            })
            .collect();
        serde_json::json!({
            "system": system,
            "links": links,
            "private": ["/proc", "/tmp"],
            "per_run": PER_RUN,
            "languages": languages,
        })
    });
    let mut doc = serde_json::json!({"schema": 1, "isolation": sandbox.level(), "layers": layers, "limits": limits, "speed": notes, "visible": visible});
    if let Some(t) = &tuned {
        doc["tuned"] = (*t).into();
    }
    judge_report::outln!("{}", serde_json::to_string_pretty(&doc)?);
    Ok(())
}

/// The layers, the isolation level, the limits and the speed notes, as text.
fn print_layers(
    sandbox: &Sandbox,
    layers: &[Layer],
    notes: &[Layer],
    limits: &[LimitMechanism],
    tuned: Option<&str>,
) {
    let width = layers.iter().map(|l| l.name.len()).max().unwrap_or(5);
    for l in layers {
        let state = if l.active { "active " } else { "MISSING" };
        judge_report::outln!("{:<width$}  {state}  {}", l.name, l.detail);
        if let (false, Some(h)) = (l.active, &l.hint) {
            judge_report::outln!("{:<width$}           hint: {h}", "");
        }
    }
    judge_report::outln!("\nisolation: {:?}", sandbox.level());
    if let Some(t) = &tuned {
        judge_report::outln!("\ntuned: {t}");
    }
    judge_report::outln!("\nlimits:");
    let width = limits.iter().map(|l| l.limit.len()).max().unwrap_or(5);
    let how = limits.iter().map(|l| l.mechanism.len()).max().unwrap_or(5);
    for l in limits {
        let exact = if l.exact { "exact" } else { "approximate" };
        judge_report::outln!(
            "{:<width$}  {:<how$}  {exact:<11}  {}",
            l.limit,
            l.mechanism,
            l.detail
        );
    }
    if !notes.is_empty() {
        judge_report::outln!("\nspeed:");
        let width = notes.iter().map(|l| l.name.len()).max().unwrap_or(5);
        for n in notes {
            let state = if n.active { "on " } else { "off" };
            judge_report::outln!("{:<width$}  {state}  {}", n.name, n.detail);
            if let (false, Some(h)) = (n.active, &n.hint) {
                judge_report::outln!("{:<width$}       hint: {h}", "");
            }
        }
    }
}

/// What programs see of the host: the system view, and each language's paths.
fn print_view(view: Option<&SystemView>, paths: &[(&Language, [Listed; 2])]) {
    let Some(v) = view else {
        judge_report::outln!("\nvisible to programs: all the host (no mount namespace)");
        return;
    };
    judge_report::outln!("\nvisible to programs (read-only; nothing else of the host):");
    let width = paths
        .iter()
        .map(|(l, _)| l.name.len())
        .chain([6, 8])
        .max()
        .unwrap_or(8);
    let show = |paths: &[PathBuf]| {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        names.join(" ")
    };
    judge_report::outln!(
        "{:<width$}  {}",
        "system",
        show(&[v.dirs.clone(), v.files.clone()].concat())
    );
    let mut names: Vec<String> = v
        .links
        .iter()
        .filter_map(|(l, _)| l.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    if names.len() > 8 {
        names.truncate(8);
        names.push("...".into());
    }
    judge_report::outln!(
        "{:<width$}  {} links of /etc/alternatives into those folders ({})",
        "",
        v.links.len(),
        names.join(" ")
    );
    judge_report::outln!(
        "{:<width$}  {}; a private /proc and /tmp",
        "",
        show(&v.devices)
    );
    judge_report::outln!("{:<width$}  {PER_RUN}", "per run");
    for (l, [compile, run]) in paths {
        let step = |s: &Listed| {
            let mut parts: Vec<String> = s.shown.iter().map(|p| p.display().to_string()).collect();
            parts.extend(
                s.missing
                    .iter()
                    .map(|p| format!("{p} (not on this machine)")),
            );
            if parts.is_empty() {
                "nothing more".to_string()
            } else {
                parts.join(" ")
            }
        };
        judge_report::outln!(
            "{:<width$}  compile: {}; run: {}",
            l.name,
            step(compile),
            step(run)
        );
    }
}

/// What every run sees besides the system view and its language's paths.
const PER_RUN: &str =
    "the build folder (the compiler writes it, the program reads it); a custom checker also reads its test's input, output and answer";

/// A language's paths for one step: those shown, and those listed but missing here.
struct Listed {
    shown: Vec<PathBuf>,
    missing: Vec<String>,
}

fn listed(language: &Language, step: Step) -> Listed {
    let placeholder = |p: &str| PathBuf::from(p);
    let mut out = Listed {
        shown: Vec::new(),
        missing: Vec::new(),
    };
    match language.listed_paths(step, &placeholder("{src}"), &placeholder("{exe}")) {
        Ok(paths) => {
            for p in paths {
                let found = lang::existing(&p);
                if found.is_empty() {
                    out.missing.push(p);
                }
                out.shown.extend(found);
            }
        }
        Err(e) => out.missing.push(e.to_string()),
    }
    out
}
