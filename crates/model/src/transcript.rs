//! An interactive test's exchange: what the relay recorded and a sample's `.interaction`, as
//! lines for the report.

use serde::Serialize;

/// Who wrote a part of the exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum From {
    /// The interactor (judge → solution: `<` in a Kattis `.interaction` file).
    Judge,
    /// The solution (solution → judge: `>`).
    Solution,
}

/// An interactive test's exchange, in the order the judge relayed it (when it was recorded),
/// and a failing sample's exchange as the package gives it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Transcript {
    /// The exchange was relayed and recorded (`--transcript`).
    pub recorded: bool,
    pub parts: Vec<(From, String)>,
    /// More was said than [`TRANSCRIPT_CAP`] bytes in some direction.
    pub truncated: bool,
    /// Where a multi-pass test's next pass begins: indexes into `parts` (`---` in the lines).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub passes: Vec<usize>,
    /// A failing sample's `.interaction` lines (`<` or `>` first), at most
    /// [`TRANSCRIPT_LINES`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sample: Vec<String>,
}

impl Transcript {
    /// The exchange as Kattis `.interaction` lines (`<` judge → solution, `>` solution → judge),
    /// at most `max_lines`, with a last line saying what was left out.
    pub fn lines(&self, max_lines: usize) -> Vec<String> {
        let mut lines = Vec::new();
        // Parts of one direction that follow each other make one text, cut into lines.
        // A pass break is a part of its own (None) that nothing merges with.
        let mut merged: Vec<Option<(From, String)>> = Vec::new();
        for (i, (from, text)) in self.parts.iter().enumerate() {
            if self.passes.contains(&i) {
                merged.push(None);
            }
            match merged.last_mut() {
                Some(Some((f, t))) if f == from && !t.ends_with('\n') => t.push_str(text),
                _ => merged.push(Some((*from, text.clone()))),
            }
        }
        for part in merged {
            let Some((from, text)) = part else {
                lines.push("---".to_string());
                continue;
            };
            let mark = match from {
                From::Judge => '<',
                From::Solution => '>',
            };
            for line in text.lines() {
                lines.push(format!("{mark}{line}"));
            }
        }
        let total = lines.len();
        if total > max_lines {
            lines.truncate(max_lines);
            lines.push(format!("… {} more lines", total - max_lines));
        } else if self.truncated {
            lines.push(format!(
                "… (recorded up to {TRANSCRIPT_CAP} bytes each way)"
            ));
        }
        lines
    }
}

impl Transcript {
    /// Appends the next pass's exchange (a multi-pass test).
    pub fn append_pass(&mut self, next: Transcript) {
        if !self.parts.is_empty() || !self.passes.is_empty() {
            self.passes.push(self.parts.len());
        }
        self.parts.extend(next.parts);
        self.truncated |= next.truncated;
        self.recorded |= next.recorded;
    }
}

/// Lines of a transcript shown for a failing test.
pub const TRANSCRIPT_LINES: usize = 40;

/// A failing test's exchange for the human report.
pub fn render(transcript: &Transcript) -> String {
    let mut s = String::new();
    if !transcript.sample.is_empty() {
        s.push_str("\n  the sample's exchange (< judge to solution, > solution to judge):\n");
        for line in &transcript.sample {
            s.push_str(&format!("    {line}\n"));
        }
    }
    if transcript.recorded {
        s.push_str("\n  exchange (< judge to solution, > solution to judge):\n");
        let lines = transcript.lines(TRANSCRIPT_LINES);
        if lines.is_empty() {
            s.push_str("    (nothing was said)\n");
        }
        for line in lines {
            s.push_str(&format!("    {line}\n"));
        }
    }
    s
}

/// Bytes of an exchange kept in each direction for `--transcript`.
pub const TRANSCRIPT_CAP: usize = 16 * 1024;
