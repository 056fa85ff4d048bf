//! Rendering events (`crate::event`): reporters for people (`human` for `run`, `verify` for
//! `verify`) and for programs (`json`, `jsonl`, `junit`), chosen by `--format`.

pub mod human;
pub mod json;
pub mod jsonl;
pub mod junit;
pub mod setter;
#[cfg(test)]
mod snapshots;
pub mod stream;
pub mod verify;

use judge_model::event::Reporter;

use std::ffi::OsString;
use std::sync::atomic::{AtomicU8, Ordering};

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

/// Warnings and notes of a document format (`json`, `junit`): on stderr, as in the human
/// report, so that stdout holds the document alone. `true` when `event` was one.
pub fn side_note(event: &judge_model::event::Event) -> bool {
    match event {
        judge_model::event::Event::Warning { message, .. } => crate::errln!("warning: {message}"),
        judge_model::event::Event::Note { message, .. } => crate::errln!("note: {message}"),
        _ => return false,
    }
    true
}

/// The reporter of a subcommand in a format, writing to stdout (and stderr for people).
pub fn reporter(format: Format, command: Command) -> Box<dyn Reporter> {
    reporter_showing(format, command, false)
}

/// [`reporter`]; `show_output`: `run`'s human table shows the failing test's output and stderr.
pub fn reporter_showing(format: Format, command: Command, show_output: bool) -> Box<dyn Reporter> {
    let out = || -> human::Out { Box::new(stream::stdout_shared()) };
    let err = || -> human::Out { Box::new(stream::stderr_shared()) };
    let colour = use_colour(&std::io::stdout());
    let status_colour = use_colour(&std::io::stderr());
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    match (format, command) {
        (Format::Human, Command::Gen | Command::Stress) => {
            Box::new(setter::SetterLines::new(out(), err(), status_colour))
        }
        (Format::Json, Command::Gen) => Box::new(json::SetterJson::new(out(), "gen")),
        (Format::Json, Command::Stress) => Box::new(json::SetterJson::new(out(), "stress")),
        (Format::Human, Command::Run) => Box::new(
            human::RunTable::new(out(), err(), colour, status_colour, progress)
                .ticking()
                .show_output(show_output),
        ),
        (Format::Human, Command::Verify) => Box::new(
            verify::VerifyTable::new(out(), err(), colour, status_colour, progress).ticking(),
        ),
        (Format::Json, Command::Run) => Box::new(json::RunJson::new(out())),
        (Format::Json, Command::Verify) => Box::new(json::VerifyJson::new(out())),
        (Format::Jsonl, _) => Box::new(jsonl::Jsonl::new(out())),
        (Format::Junit, command) => Box::new(junit::Junit::new(out(), command == Command::Verify)),
    }
}
