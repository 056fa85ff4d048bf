//! Rendering results: the human table (`human`) and the machine-readable JSON (`json`).

pub mod diff;
pub mod human;
pub mod json;
pub mod stream;

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
