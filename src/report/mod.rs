//! Rendering results: the human table (`human`) and the machine-readable JSON (`json`).

pub mod diff;
pub mod human;
pub mod json;
pub mod stream;

use crate::checker::Mismatch;
use serde::Serializer;
use std::ffi::OsString;
use std::sync::atomic::{AtomicU8, Ordering};
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

/// `--color`: whether to paint output (the one place that decides is [`use_colour`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColourChoice {
    /// On a terminal, unless NO_COLOR is set, CLICOLOR=0 or TERM=dumb; anywhere when
    /// CLICOLOR_FORCE is set.
    #[default]
    Auto,
    /// Always colour, also into a pipe or a file.
    Always,
    /// Never colour.
    Never,
}

/// The process's `--color`, set once by the command line before anything is printed.
static CHOICE: AtomicU8 = AtomicU8::new(0);

/// Records `--color` for every later [`use_colour`].
pub fn set_colour_choice(choice: ColourChoice) {
    CHOICE.store(choice as u8, Ordering::Relaxed);
}

/// The recorded `--color` (auto until [`set_colour_choice`]).
pub fn colour_choice() -> ColourChoice {
    match CHOICE.load(Ordering::Relaxed) {
        1 => ColourChoice::Always,
        2 => ColourChoice::Never,
        _ => ColourChoice::Auto,
    }
}

/// Whether to colour a stream (stdout or stderr): the one place that decides, for every
/// subcommand. See [`decide_colour`].
pub fn use_colour(stream: &impl std::io::IsTerminal) -> bool {
    decide_colour(
        colour_choice(),
        |name| std::env::var_os(name),
        stream.is_terminal(),
    )
}

/// The rule, first match wins: `--color always|never`; a non-empty `NO_COLOR` → no colour;
/// a non-empty `CLICOLOR_FORCE` other than `0` → colour; `CLICOLOR=0` or `TERM=dumb` → no
/// colour; otherwise colour exactly when the stream is a terminal.
pub fn decide_colour(
    choice: ColourChoice,
    env: impl Fn(&str) -> Option<OsString>,
    terminal: bool,
) -> bool {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    match choice {
        ColourChoice::Always => true,
        ColourChoice::Never => false,
        ColourChoice::Auto => {
            if set("NO_COLOR").is_some() {
                false
            } else if set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                true
            } else if set("CLICOLOR").is_some_and(|v| v == "0")
                || set("TERM").is_some_and(|v| v == "dumb")
            {
                false
            } else {
                terminal
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let vars: Vec<(String, OsString)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn the_flag_beats_the_environment_and_the_terminal() {
        use ColourChoice::*;
        let no_color = with(&[("NO_COLOR", "1")]);
        assert!(decide_colour(Always, &no_color, false));
        assert!(!decide_colour(
            Never,
            with(&[("CLICOLOR_FORCE", "1")]),
            true
        ));
    }

    #[test]
    fn auto_follows_no_color_then_clicolor_force_then_clicolor_then_the_terminal() {
        use ColourChoice::Auto;
        assert!(decide_colour(Auto, with(&[]), true));
        assert!(!decide_colour(Auto, with(&[]), false));
        assert!(!decide_colour(Auto, with(&[("NO_COLOR", "1")]), true));
        // An empty NO_COLOR does not count (no-color.org).
        assert!(decide_colour(Auto, with(&[("NO_COLOR", "")]), true));
        assert!(decide_colour(Auto, with(&[("CLICOLOR_FORCE", "1")]), false));
        assert!(!decide_colour(
            Auto,
            with(&[("CLICOLOR_FORCE", "0")]),
            false
        ));
        assert!(!decide_colour(
            Auto,
            with(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]),
            true
        ));
        assert!(!decide_colour(Auto, with(&[("CLICOLOR", "0")]), true));
        assert!(!decide_colour(Auto, with(&[("TERM", "dumb")]), true));
        assert!(decide_colour(Auto, with(&[("TERM", "xterm")]), true));
        assert!(decide_colour(
            Auto,
            with(&[("TERM", "dumb"), ("CLICOLOR_FORCE", "1")]),
            false
        ));
        assert!(decide_colour(Auto, with(&[("CLICOLOR", "1")]), true));
        assert!(decide_colour(
            Auto,
            with(&[("CLICOLOR", "0"), ("CLICOLOR_FORCE", "1")]),
            false
        ));
    }
}
