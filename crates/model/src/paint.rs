//! ANSI colour for people, as data: painted only when on.

use crate::Verdict;

/// Paints text with an ANSI colour when colour is on.
pub struct Paint {
    pub on: bool,
}

impl Paint {
    pub fn verdict(&self, v: Verdict, text: &str) -> String {
        let code = match v {
            Verdict::AC => "32",
            Verdict::JE => "35",
            Verdict::CE => "33",
            _ => "31",
        };
        self.wrap(code, text)
    }

    pub fn bold(&self, text: &str) -> String {
        self.wrap("1", text)
    }

    pub fn dim(&self, text: &str) -> String {
        self.wrap("2", text)
    }

    pub fn wrap(&self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}
