//! Rendering events (`crate::event`): reporters for people (`human` for `run`, `verify` for
//! `verify`) and for programs (`json`, `jsonl`, `junit`), chosen by `--format`.

pub mod diff;
pub mod human;
pub mod json;
pub mod jsonl;
pub mod junit;
pub mod setter;
#[cfg(test)]
mod snapshots;
pub mod stream;
pub mod verify;

use crate::event::Reporter;

use crate::checker::Mismatch;
use serde::Serializer;
use std::time::Duration;

/// "12.5 MiB".
pub fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// "0.123 s".
pub fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

pub fn ser_ms<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 1e4).round() / 10.0)
}

pub fn ser_kib<S: Serializer>(bytes: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(bytes / 1024)
}

pub fn ser_mismatch<S: Serializer>(m: &Option<Mismatch>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    match m {
        None => s.serialize_none(),
        Some(m) => {
            let mut st = s.serialize_struct("Mismatch", 5)?;
            st.serialize_field("line", &m.line)?;
            st.serialize_field("column", &m.column)?;
            st.serialize_field("expected", &m.expected)?;
            st.serialize_field("found", &m.found)?;
            let plain = human::Paint { on: false };
            st.serialize_field("diff", &diff::render(&m.window, &plain, ""))?;
            st.end()
        }
    }
}

/// Whether to colour a stream: a terminal, and NO_COLOR unset.
pub fn use_colour(stream: &impl std::io::IsTerminal) -> bool {
    stream.is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// A table for people; status and progress lines on stderr.
    #[default]
    Human,
    /// One JSON document on stdout at the end (`--json`).
    Json,
    /// One JSON object per event and line, as it happens.
    Jsonl,
    /// JUnit XML for CI systems, at the end.
    Junit,
}

/// Which subcommand a reporter renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Run,
    Verify,
    Gen,
    Stress,
}

/// A format a subcommand does not write.
#[derive(Debug, thiserror::Error)]
#[error("--format {format} is not available for `judge {command}`\n  hint: gen and stress write human or jsonl; json and junit are for run and verify")]
pub struct NoSuchFormat {
    format: &'static str,
    command: &'static str,
}

/// The reporter of a subcommand in a format, writing to stdout (and stderr for people).
pub fn reporter(format: Format, command: Command) -> Result<Box<dyn Reporter>, NoSuchFormat> {
    let out = || -> human::Out { Box::new(stream::stdout_shared()) };
    let err = || -> human::Out { Box::new(stream::stderr_shared()) };
    let colour = use_colour(&std::io::stdout());
    let status_colour = use_colour(&std::io::stderr());
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    Ok(match (format, command) {
        (Format::Human, Command::Gen | Command::Stress) => {
            Box::new(setter::SetterLines::new(out(), err(), status_colour))
        }
        (Format::Json | Format::Junit, Command::Gen | Command::Stress) => {
            return Err(NoSuchFormat {
                format: if format == Format::Json {
                    "json"
                } else {
                    "junit"
                },
                command: if command == Command::Gen {
                    "gen"
                } else {
                    "stress"
                },
            })
        }
        (Format::Human, Command::Run) => {
            Box::new(human::RunTable::new(out(), err(), colour, status_colour, progress).ticking())
        }
        (Format::Human, Command::Verify) => Box::new(
            verify::VerifyTable::new(out(), err(), colour, status_colour, progress).ticking(),
        ),
        (Format::Json, Command::Run) => Box::new(json::RunJson::new(out())),
        (Format::Json, Command::Verify) => Box::new(json::VerifyJson::new(out())),
        (Format::Jsonl, _) => Box::new(jsonl::Jsonl::new(out())),
        (Format::Junit, command) => Box::new(junit::Junit::new(out(), command == Command::Verify)),
    })
}
