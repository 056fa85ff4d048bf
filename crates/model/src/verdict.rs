//! Verdicts: of one test or of a whole submission.

use serde::Serialize;
use std::fmt;

/// The verdict of one test or of a whole submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
pub enum Verdict {
    /// Accepted.
    AC,
    /// Wrong answer.
    WA,
    /// Presentation error.
    PE,
    /// Time limit exceeded (CPU or wall clock).
    TLE,
    /// Memory limit exceeded.
    MLE,
    /// Output limit exceeded.
    OLE,
    /// Runtime error: non-zero exit or a signal.
    RE,
    /// Compilation error.
    CE,
    /// Judge error: the checker failed or a file was missing; never the contestant's fault.
    JE,
}

impl Verdict {
    pub const ALL: [Verdict; 9] = [
        Verdict::AC,
        Verdict::WA,
        Verdict::PE,
        Verdict::TLE,
        Verdict::MLE,
        Verdict::OLE,
        Verdict::RE,
        Verdict::CE,
        Verdict::JE,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Verdict::AC => "AC",
            Verdict::WA => "WA",
            Verdict::PE => "PE",
            Verdict::TLE => "TLE",
            Verdict::MLE => "MLE",
            Verdict::OLE => "OLE",
            Verdict::RE => "RE",
            Verdict::CE => "CE",
            Verdict::JE => "JE",
        }
    }

    pub fn long_name(self) -> &'static str {
        match self {
            Verdict::AC => "accepted",
            Verdict::WA => "wrong answer",
            Verdict::PE => "presentation error",
            Verdict::TLE => "time limit exceeded",
            Verdict::MLE => "memory limit exceeded",
            Verdict::OLE => "output limit exceeded",
            Verdict::RE => "runtime error",
            Verdict::CE => "compilation error",
            Verdict::JE => "judge error",
        }
    }

    /// The `solutions/<slug>/<folder>/` name that expects this verdict (none for JE).
    pub fn folder(self) -> Option<&'static str> {
        Some(match self {
            Verdict::AC => "accepted",
            Verdict::WA => "wrong_answer",
            Verdict::PE => "presentation_error",
            Verdict::TLE => "time_limit_exceeded",
            Verdict::MLE => "memory_limit_exceeded",
            Verdict::OLE => "output_limit_exceeded",
            Verdict::RE => "runtime_error",
            Verdict::CE => "compile_error",
            Verdict::JE => return None,
        })
    }

    pub fn from_folder(folder: &str) -> Option<Verdict> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.folder() == Some(folder))
    }

    pub fn from_code(code: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.code() == code)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_round_trip() {
        for v in Verdict::ALL {
            if let Some(f) = v.folder() {
                assert_eq!(Verdict::from_folder(f), Some(v));
            }
            assert_eq!(Verdict::from_code(v.code()), Some(v));
        }
        assert_eq!(Verdict::from_folder("judge_error"), None);
    }
}
