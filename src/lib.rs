//! The `judge` command line: arguments, the session a subcommand judges in, reporters picked by
//! `--format`, exit statuses. No judging logic lives here: it calls `judge_core` (see
//! ARCHITECTURE.md for the crates).

pub mod cli;
