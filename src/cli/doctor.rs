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
    if args.json {
        let doc = serde_json::json!({"schema": 1, "isolation": sandbox.level(), "layers": layers, "speed": notes});
        crate::outln!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(exit::OK);
    }
    let width = layers.iter().map(|l| l.name.len()).max().unwrap_or(5);
    for l in &layers {
        let state = if l.active { "active " } else { "MISSING" };
        crate::outln!("{:<width$}  {state}  {}", l.name, l.detail);
        if let (false, Some(h)) = (l.active, &l.hint) {
            crate::outln!("{:<width$}           hint: {h}", "");
        }
    }
    crate::outln!("\nisolation: {:?}", sandbox.level());
    if !notes.is_empty() {
        crate::outln!("\nspeed:");
        let width = notes.iter().map(|l| l.name.len()).max().unwrap_or(5);
        for n in &notes {
            let state = if n.active { "on " } else { "off" };
            crate::outln!("{:<width$}  {state}  {}", n.name, n.detail);
            if let (false, Some(h)) = (n.active, &n.hint) {
                crate::outln!("{:<width$}       hint: {h}", "");
            }
        }
    }
    Ok(exit::OK)
}
