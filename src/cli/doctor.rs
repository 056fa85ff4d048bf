//! `judge doctor`: each isolation layer, active or missing, why, and how to enable it.

use super::exit;
use crate::sandbox::Sandbox;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the layers as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let sandbox = Sandbox::new()?;
    let layers = sandbox.layers();
    let notes = sandbox.notes();
    let limits = sandbox.limits();
    if args.json {
        let doc = serde_json::json!({"schema": 1, "isolation": sandbox.level(), "layers": layers, "limits": limits, "speed": notes});
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
    println!("\nlimits:");
    let width = limits.iter().map(|l| l.limit.len()).max().unwrap_or(5);
    let how = limits.iter().map(|l| l.mechanism.len()).max().unwrap_or(5);
    for l in &limits {
        let exact = if l.exact { "exact" } else { "approximate" };
        println!(
            "{:<width$}  {:<how$}  {exact:<11}  {}",
            l.limit, l.mechanism, l.detail
        );
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
