//! `judge completions <SHELL>`: prints a completion script for the shell on stdout.

use super::exit;
use clap::CommandFactory;
use clap_complete::Shell;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell to complete for.
    shell: Shell,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let mut out = judge_report::stream::stdout();
    write(args.shell, &mut out);
    Ok(exit::OK)
}

/// Writes the completion script of `judge` for `shell`.
pub fn write(shell: Shell, out: &mut dyn std::io::Write) {
    let mut command = super::Cli::command();
    clap_complete::generate(shell, &mut command, "judge", out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(shell: Shell) -> String {
        let mut out = Vec::new();
        write(shell, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_shell_gets_the_subcommands_and_the_global_flags() {
        for (shell, long) in [
            (Shell::Bash, "--"),
            (Shell::Zsh, "--"),
            (Shell::Fish, "-l "),
            (Shell::PowerShell, "--"),
        ] {
            let s = script(shell);
            let words = ["verify", "stress", "doctor", "completions"]
                .map(String::from)
                .into_iter()
                .chain(["color", "test", "languages"].map(|f| format!("{long}{f}")));
            for word in words {
                assert!(s.contains(&word), "{shell}: no {word:?} in\n{s}");
            }
        }
    }

    #[test]
    fn the_color_values_are_offered() {
        let s = script(Shell::Fish);
        for value in ["auto", "always", "never"] {
            assert!(s.contains(value), "no {value:?} in\n{s}");
        }
    }
}
