//! `judge doctor`: each isolation layer, active or missing, why, and how to enable it.

use super::exit;
use crate::sandbox::Sandbox;

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

pub fn run(args: Args) -> anyhow::Result<i32> {
    let tuned = if args.tune {
        Some(Sandbox::tune().map_err(anyhow::Error::msg)?)
    } else {
        None
    };
    let sandbox = Sandbox::new()?;
    let layers = sandbox.layers();
    let notes = sandbox.notes();
    if args.json {
        let mut doc = serde_json::json!({"schema": 1, "isolation": sandbox.level(), "layers": layers, "speed": notes});
        if let Some(t) = &tuned {
            doc["tuned"] = t.as_str().into();
        }
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(exit::OK);
    }
    let width = layers.iter().map(|l| l.name.len()).max().unwrap_or(5);
    for l in &layers {
        let state = if l.active { "active " } else { "MISSING" };
        println!("{:<width$}  {state}  {}", l.name, l.detail);
        if let (false, Some(h)) = (l.active, &l.hint) {
            println!("{:<width$}           hint: {h}", "");
        }
    }
    println!("\nisolation: {:?}", sandbox.level());
    if let Some(t) = &tuned {
        println!("\ntuned: {t}");
    }
    if !notes.is_empty() {
        println!("\nspeed:");
        let width = notes.iter().map(|l| l.name.len()).max().unwrap_or(5);
        for n in &notes {
            let state = if n.active { "on " } else { "off" };
            println!("{:<width$}  {state}  {}", n.name, n.detail);
            if let (false, Some(h)) = (n.active, &n.hint) {
                println!("{:<width$}       hint: {h}", "");
            }
        }
    }
    Ok(exit::OK)
}
