//! competitive-companion's problem JSON (one POST per problem; a contest parse is `batch.size`
//! POSTs with one `batch.id`), read into a checked [`Received`]. Units are converted here:
//! `timeLimit` is milliseconds, `memoryLimit` megabytes (the sites' "megabytes" are MiB, so
//! they are kept as MiB). Everything that ends up in a file name or a link is checked: the
//! input/output file names are plain names, the address is `http(s)://` or dropped.

use serde::Deserialize;

/// The largest body either port accepts (samples included).
pub const MAX_BODY: usize = 4 << 20;
/// At most this many samples per problem.
pub const MAX_TESTS: usize = 200;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Raw {
    name: Option<String>,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    interactive: Option<bool>,
    memory_limit: Option<f64>,
    time_limit: Option<f64>,
    #[serde(default)]
    tests: Vec<RawTest>,
    #[serde(default)]
    input: Option<RawIo>,
    #[serde(default)]
    output: Option<RawIo>,
    #[serde(default)]
    batch: Option<RawBatch>,
}

#[derive(Debug, Deserialize)]
struct RawTest {
    input: String,
    output: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawIo {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    file_name: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawBatch {
    id: String,
    size: u64,
}

/// A received problem, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Received {
    pub name: String,
    pub group: String,
    /// `http://` or `https://`, else empty.
    pub url: String,
    pub interactive: bool,
    pub time_limit_ms: u64,
    pub memory_mib: u64,
    pub tests: Vec<Sample>,
    pub input_file: Option<String>,
    pub output_file: Option<String>,
    pub batch: Option<Batch>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub input: String,
    pub output: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    pub id: String,
    pub size: u64,
}

/// Reads and checks a body; the error says what is wrong, for a 400.
pub fn parse(body: &[u8]) -> Result<Received, String> {
    if body.len() > MAX_BODY {
        return Err(format!("the body is over {} MiB", MAX_BODY >> 20));
    }
    // CHelper's port gets `json\n` before the JSON; accept it here too.
    let body = body.strip_prefix(b"json\n").unwrap_or(body);
    let raw: Raw = serde_json::from_slice(body)
        .map_err(|e| format!("not a competitive-companion problem: {e}"))?;
    let name = clean_line(raw.name.as_deref().unwrap_or_default(), 200);
    if name.is_empty() {
        return Err("`name` is missing or empty".into());
    }
    let group = clean_line(raw.group.as_deref().unwrap_or_default(), 200);
    let url = clean_line(raw.url.as_deref().unwrap_or_default(), 2000);
    let url = if url.starts_with("https://") || url.starts_with("http://") {
        url
    } else {
        String::new()
    };
    let time = raw.time_limit.ok_or("`timeLimit` (ms) is missing")?;
    if !(time.is_finite() && (1.0..=3_600_000.0).contains(&time)) {
        return Err(format!(
            "`timeLimit` = {time} ms is not between 1 ms and one hour"
        ));
    }
    let memory = raw.memory_limit.ok_or("`memoryLimit` (MB) is missing")?;
    if !(memory.is_finite() && (4.0..=65536.0).contains(&memory)) {
        return Err(format!(
            "`memoryLimit` = {memory} MB is not between 4 and 65536"
        ));
    }
    if raw.tests.len() > MAX_TESTS {
        return Err(format!(
            "{} tests: at most {MAX_TESTS} are kept",
            raw.tests.len()
        ));
    }
    let file = |io: &Option<RawIo>, plain: &str, what: &str| -> Result<Option<String>, String> {
        match io {
            Some(RawIo { kind, file_name }) if kind == "file" => {
                let name = file_name.as_deref().unwrap_or_default();
                if name.is_empty()
                    || name.len() > 100
                    || name.starts_with('.')
                    || !name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
                {
                    return Err(format!(
                        "`{what}.fileName` {name:?} is not a plain file name"
                    ));
                }
                Ok(Some(name.to_string()))
            }
            // `regex` (pick the input file by a pattern) has no meaning for a local judge:
            // the program reads stdin.
            Some(RawIo { kind, .. }) if kind == plain || kind == "regex" => Ok(None),
            None => Ok(None),
            Some(RawIo { kind, .. }) => Err(format!("`{what}.type` {kind:?} is unknown")),
        }
    };
    let input_file = file(&raw.input, "stdin", "input")?;
    let output_file = file(&raw.output, "stdout", "output")?;
    let batch = match raw.batch {
        Some(b) => {
            let id = clean_line(&b.id, 100);
            if id.is_empty() || !(1..=100).contains(&b.size) {
                return Err("`batch` needs an `id` and a `size` from 1 to 100".into());
            }
            Some(Batch { id, size: b.size })
        }
        None => None,
    };
    Ok(Received {
        name,
        group,
        url,
        interactive: raw.interactive.unwrap_or(false),
        time_limit_ms: time.round() as u64,
        memory_mib: memory.round() as u64,
        tests: raw
            .tests
            .into_iter()
            .map(|t| Sample {
                input: t.input,
                output: t.output,
            })
            .collect(),
        input_file,
        output_file,
        batch,
    })
}

/// One line of text: control characters dropped, trimmed, at most `max` characters.
fn clean_line(text: &str, max: usize) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .take(max)
        .collect::<String>()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_is_read_with_its_units_converted() {
        let p = parse(br#"{"name":"B. Two\u0007 Buttons","group":"Codeforces - Round 295","url":"https://codeforces.com/problemset/problem/520/B",
            "interactive":true,"memoryLimit":256,"timeLimit":2000,"tests":[{"input":"4 6\n","output":"2\n"}],"testType":"single",
            "input":{"type":"stdin"},"output":{"type":"file","fileName":"out.txt"},"languages":{"java":{"mainClass":"Main","taskClass":"B"}},
            "batch":{"id":"123e4567-e89b-12d3-a456-426614174000","size":3}}"#).unwrap();
        assert_eq!(p.name, "B. Two Buttons");
        assert_eq!(p.time_limit_ms, 2000);
        assert_eq!(p.memory_mib, 256);
        assert!(p.interactive);
        assert_eq!(p.input_file, None);
        assert_eq!(p.output_file.as_deref(), Some("out.txt"));
        assert_eq!(p.tests.len(), 1);
        assert_eq!(p.batch.unwrap().size, 3);
        // CHelper's prefix.
        assert!(parse(b"json\n{\"name\":\"x\",\"timeLimit\":1000,\"memoryLimit\":64}").is_ok());
    }

    #[test]
    fn bad_bodies_are_refused_with_a_reason() {
        for (body, says) in [
            (&b"not json"[..], "not a competitive-companion problem"),
            (b"[]", "not a competitive-companion problem"),
            (b"{\"timeLimit\":1000,\"memoryLimit\":64}", "`name`"),
            (b"{\"name\":\"x\",\"memoryLimit\":64}", "`timeLimit`"),
            (b"{\"name\":\"x\",\"timeLimit\":0,\"memoryLimit\":64}", "`timeLimit`"),
            (b"{\"name\":\"x\",\"timeLimit\":1000,\"memoryLimit\":1e9}", "`memoryLimit`"),
            (b"{\"name\":\"x\",\"timeLimit\":1000,\"memoryLimit\":64,\"input\":{\"type\":\"file\",\"fileName\":\"../../etc/passwd\"}}", "plain file name"),
            (b"{\"name\":\"x\",\"timeLimit\":1000,\"memoryLimit\":64,\"batch\":{\"id\":\"a\",\"size\":0}}", "`batch`"),
        ] {
            let err = parse(body).unwrap_err();
            assert!(err.contains(says), "{}: {err}", String::from_utf8_lossy(body));
        }
        // A link that is not http(s) is dropped, not kept for the page to follow.
        let p =
            parse(br#"{"name":"x","timeLimit":1000,"memoryLimit":64,"url":"javascript:alert(1)"}"#)
                .unwrap();
        assert_eq!(p.url, "");
    }
}
