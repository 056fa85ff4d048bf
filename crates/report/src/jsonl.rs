//! `--format jsonl`: every event as one JSON object on its own line, written and flushed as it
//! happens, so a reader sees the first test's result while later tests still run. Each line
//! carries `"schema": 1` and `"event": "<name>"`; the fields of each event are in the book (`docs/book/src/organisers/json.md`).

use super::human::Out;
use judge_model::event::{Event, Reporter, SCHEMA};
use serde::Serialize;
use std::io::Write;

#[derive(Serialize)]
struct Line<'a> {
    schema: u32,
    #[serde(flatten)]
    event: &'a Event,
}

/// Writes one line per event.
pub struct Jsonl {
    out: Out,
}

impl Jsonl {
    pub fn new(out: Out) -> Jsonl {
        Jsonl { out }
    }
}

/// The line of one event (without the newline).
pub fn line(event: &Event) -> String {
    serde_json::to_string(&Line {
        schema: SCHEMA,
        event,
    })
    .expect("events always serialize")
}

impl Reporter for Jsonl {
    fn event(&mut self, event: &Event) {
        let _ = writeln!(self.out, "{}", line(event));
        let _ = self.out.flush();
    }
}
