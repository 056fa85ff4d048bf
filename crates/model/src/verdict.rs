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

/// A judgement type of the ICPC Contest API (CLICS): what `judge serve`'s
/// `/api/v1/contests/{id}/judgement-types` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JudgementType {
    /// The Contest API's id (`AC`, `WA`, `RTE`, …).
    pub id: &'static str,
    pub name: &'static str,
    /// A rejection with this type costs penalty time.
    pub penalty: bool,
    /// The problem counts as solved.
    pub solved: bool,
}

impl Verdict {
    /// The Contest API judgement type this verdict is given as: the one place our verdicts
    /// meet CLICS ids. Its own id where the spec's table has ours; `RE` is the spec's `RTE`.
    /// Compile and judging errors cost no penalty, as the spec's table gives them.
    pub fn judgement_type(self) -> JudgementType {
        let (id, name, penalty, solved) = match self {
            Verdict::AC => ("AC", "Accepted", false, true),
            Verdict::WA => ("WA", "Wrong Answer", true, false),
            Verdict::PE => ("PE", "Presentation Error", true, false),
            Verdict::TLE => ("TLE", "Time Limit Exceeded", true, false),
            Verdict::MLE => ("MLE", "Memory Limit Exceeded", true, false),
            Verdict::OLE => ("OLE", "Output Limit Exceeded", true, false),
            Verdict::RE => ("RTE", "Run-Time Error", true, false),
            Verdict::CE => ("CE", "Compiler Error", false, false),
            Verdict::JE => ("JE", "Judging Error", false, false),
        };
        JudgementType {
            id,
            name,
            penalty,
            solved,
        }
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

    #[test]
    fn judgement_types_are_distinct_and_only_accepted_solves() {
        let ids: std::collections::BTreeSet<_> =
            Verdict::ALL.iter().map(|v| v.judgement_type().id).collect();
        assert_eq!(ids.len(), Verdict::ALL.len());
        assert_eq!(Verdict::RE.judgement_type().id, "RTE");
        for v in Verdict::ALL {
            let t = v.judgement_type();
            assert_eq!(t.solved, v == Verdict::AC, "{v}");
            assert_eq!(
                t.penalty,
                !matches!(v, Verdict::AC | Verdict::CE | Verdict::JE),
                "{v}"
            );
        }
    }
}
