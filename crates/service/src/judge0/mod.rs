//! A Judge0-compatible API (`/judge0/` on `judge serve`): the facts of the Judge0 CE API
//! (status ids, language ids, field names and units, limits and their maxima) mapped onto the
//! service's queue.
//!
//! A Judge0 submission becomes a one-test native package (`problem.toml` with its limits,
//! `tests/1.in` its stdin, `tests/1.ans` its expected output or nothing) stored as a blob and
//! queued as a submission of the problem `judge0`, so that it is judged by a worker like any
//! other: distributed, fenced, exactly once. The Judge0 extras (token, request, what the run
//! printed) live in the table `judge0_submissions`; the worker's finish writes the run's
//! output there in the same transaction as the verdict ([`record`]). The routes are
//! `http::judge0`.

use crate::db::{Db, Engine, Sql, Tx};
use crate::rows::QUEUED;
use crate::Error;
use serde_json::{json, Map, Value};

/// The Judge0 CE API version whose ids and shapes this serves (`GET /about`'s `version`).
pub const API_VERSION: &str = "1.13.1";

/// The problem every Judge0 submission is queued under (each keeps its own package).
pub const PROBLEM: &str = "judge0";

/// The table of the Judge0 extras, created with the others (its own statement).
pub const TABLE: &str = "
CREATE TABLE IF NOT EXISTS judge0_submissions (
    token text PRIMARY KEY,
    submission bigint NOT NULL UNIQUE REFERENCES submissions (id),
    language_id integer NOT NULL,
    source_code bytea NOT NULL,
    stdin bytea,
    expected_output bytea,
    -- The request's limits and options as Judge0 names them (JSON text).
    settings text NOT NULL,
    callback_url text,
    -- Whether the callback is to be sent with base64 fields.
    callback_base64 boolean NOT NULL DEFAULT false,
    -- 'pending' until the callback is sent ('sent') or its tries are spent ('failed').
    callback_state text,
    -- What the run printed and the compiler said, written by the worker's finish.
    stdout text,
    stderr text,
    compile_output text,
    wall_ms bigint
);
";

/// What the first test of a judging printed and what the compiler said: kept for the runs
/// whose callers read them back (the Judge0 API). Each stream is what the engine captured: up
/// to the run's `max_file_size` for a Judge0 run ([`capture`]), else
/// `judge_model::result::Captured::CAP` bytes (stdout its head, stderr its tail).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunOutput {
    pub stdout: Option<String>,
    pub stderr: Option<String>,
    pub compile_output: String,
    pub wall_ms: Option<i64>,
}

impl RunOutput {
    /// The output of a submission report's first test and its compilation.
    pub fn of(report: &judge_model::result::SubmissionReport) -> RunOutput {
        let first = report.tests.first();
        RunOutput {
            stdout: first
                .and_then(|t| t.stdout.as_ref())
                .map(|c| c.text.clone()),
            stderr: first
                .and_then(|t| t.stderr.as_ref())
                .map(|c| c.text.clone()),
            compile_output: report.compile.message.clone(),
            wall_ms: first.map(|t| t.wall.as_millis() as i64),
        }
    }
}

/// Called by `queue::finish` inside its transaction: a Judge0 submission's run output is
/// written with its verdict, or not at all. Any other submission changes nothing.
pub fn record(tx: &mut Tx<'_>, submission: i64, output: Option<&RunOutput>) -> Result<(), Error> {
    let Some(run) = output else {
        return Ok(());
    };
    tx.execute(
        "UPDATE judge0_submissions SET stdout = $2, stderr = $3, compile_output = $4, wall_ms = $5
         WHERE submission = $1",
        &[
            &submission,
            &run.stdout,
            &run.stderr,
            &run.compile_output,
            &run.wall_ms,
        ],
    )?;
    Ok(())
}

/// How many bytes of stdout and stderr the submission `submission` keeps when it is a Judge0
/// one (its `max_file_size`: Judge0 returns the whole output); None for any other.
pub fn capture(client: &mut Db, submission: i64) -> Result<Option<usize>, Error> {
    let row = client.query_opt(
        "SELECT settings FROM judge0_submissions WHERE submission = $1",
        &[&submission],
    )?;
    Ok(row.map(|r| {
        let settings: Value = serde_json::from_str(&r.get::<_, String>(0)).unwrap_or_default();
        let kb = settings["max_file_size"].as_f64().unwrap_or(1024.0);
        (kb * 1024.0) as usize
    }))
}

/// Judge0's statuses: id and description.
pub const STATUSES: [(i32, &str); 14] = [
    (1, "In Queue"),
    (2, "Processing"),
    (3, "Accepted"),
    (4, "Wrong Answer"),
    (5, "Time Limit Exceeded"),
    (6, "Compilation Error"),
    (7, "Runtime Error (SIGSEGV)"),
    (8, "Runtime Error (SIGXFSZ)"),
    (9, "Runtime Error (SIGFPE)"),
    (10, "Runtime Error (SIGABRT)"),
    (11, "Runtime Error (NZEC)"),
    (12, "Runtime Error (Other)"),
    (13, "Internal Error"),
    (14, "Exec Format Error"),
];

/// The status object `{id, description}` of `id`.
pub fn status(id: i32) -> Value {
    let description = STATUSES
        .iter()
        .find(|(i, _)| *i == id)
        .map_or("Internal Error", |(_, d)| d);
    json!({ "id": id, "description": description })
}

/// How a run ended, read from its test's message (`exit code N`, `killed by signal N (…)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Code(i32),
    Signal(i32),
    Unknown,
}

pub fn ending(message: &str) -> Ending {
    let number = |rest: &str| -> Option<i32> {
        rest.split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
    };
    if let Some(n) = message
        .find("killed by signal ")
        .and_then(|i| number(&message[i + 17..]))
    {
        return Ending::Signal(n);
    }
    if let Some(n) = message
        .find("exit code ")
        .and_then(|i| number(&message[i + 10..]))
    {
        return Ending::Code(n);
    }
    Ending::Unknown
}

/// Judge0's status id for our verdict. Without an expected output any output is accepted
/// (as Judge0 does): a WA or PE is then Accepted. A runtime error is told by its signal; a
/// memory limit (Judge0 has no status for it) is Runtime Error (Other), an output limit
/// SIGXFSZ (what Judge0's file size limit sends).
pub fn status_id(verdict: &str, expected_given: bool, message: &str) -> i32 {
    match verdict {
        "AC" => 3,
        "WA" | "PE" if expected_given => 4,
        "WA" | "PE" => 3,
        "TLE" => 5,
        "CE" => 6,
        "OLE" => 8,
        "MLE" => 12,
        "RE" => match ending(message) {
            Ending::Signal(11) => 7,
            Ending::Signal(25) => 8,
            Ending::Signal(8) => 9,
            Ending::Signal(6) => 10,
            Ending::Code(_) => 11,
            _ => 12,
        },
        _ => 13,
    }
}

/// A Judge0 CE language id and the entry of our table it runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Language {
    pub id: i32,
    /// Judge0 CE's name for it (its compiler and version are the ones installed here).
    pub name: &'static str,
    /// Our table's entry.
    pub ours: &'static str,
    /// The file name the source is judged as (Java's class must be `Main`, as on Judge0).
    pub file: &'static str,
}

/// Judge0 CE's ids for the languages our table has. Several of its ids name one language at
/// different compiler versions; each runs with the one installed here.
pub const LANGUAGES: [Language; 9] = [
    lang(48, "C (GCC 7.4.0)", "C", "main.c"),
    lang(49, "C (GCC 8.3.0)", "C", "main.c"),
    lang(50, "C (GCC 9.2.0)", "C", "main.c"),
    lang(52, "C++ (GCC 7.4.0)", "C++", "main.cpp"),
    lang(53, "C++ (GCC 8.3.0)", "C++", "main.cpp"),
    lang(54, "C++ (GCC 9.2.0)", "C++", "main.cpp"),
    lang(62, "Java (OpenJDK 13.0.1)", "Java", "Main.java"),
    lang(71, "Python (3.8.1)", "Python 3", "script.py"),
    lang(73, "Rust (1.40.0)", "Rust", "main.rs"),
];

const fn lang(id: i32, name: &'static str, ours: &'static str, file: &'static str) -> Language {
    Language {
        id,
        name,
        ours,
        file,
    }
}

/// The Judge0 languages this server can run: those whose entry is in its table.
pub fn languages(table: &judge_core::lang::Languages) -> Vec<Language> {
    LANGUAGES
        .iter()
        .filter(|l| table.all().iter().any(|t| t.name == l.ours))
        .copied()
        .collect()
}

/// A configuration variable: its default and its maximum.
struct Limit {
    name: &'static str,
    default: f64,
    max: f64,
    /// The least value allowed; none: any above 0.
    min: Option<f64>,
    integer: bool,
}

/// The defaults and maxima `GET /config_info` reports (Judge0's documented defaults).
const LIMITS: [Limit; 7] = [
    limit("cpu_time_limit", 2.0, 15.0, None, false),
    limit("cpu_extra_time", 0.5, 2.0, Some(0.0), false),
    limit("wall_time_limit", 5.0, 20.0, None, false),
    limit("memory_limit", 128000.0, 256000.0, Some(4096.0), true),
    limit("stack_limit", 64000.0, 128000.0, Some(1024.0), true),
    limit("max_file_size", 1024.0, 4096.0, Some(1.0), true),
    limit("number_of_runs", 1.0, 20.0, Some(1.0), true),
];

const fn limit(
    name: &'static str,
    default: f64,
    max: f64,
    min: Option<f64>,
    integer: bool,
) -> Limit {
    Limit {
        name,
        default,
        max,
        min,
        integer,
    }
}

/// The most Judge0 submissions that may wait (queued or judging) at once; past it a create is
/// refused with 503, as Judge0 refuses when its queue is full.
pub const MAX_QUEUE: i64 = 100;

/// How many Judge0 submissions wait now (queued or judging).
pub fn waiting(client: &mut Db) -> Result<i64, Error> {
    Ok(client
        .query_one(
            "SELECT count(*) FROM judge0_submissions j JOIN submissions s ON s.id = j.submission
             WHERE s.state <> 'done'",
            &[],
        )?
        .get(0))
}

/// The largest number of submissions one batch may hold.
pub const MAX_BATCH: usize = 20;
/// The largest number of processes and threads (accepted and reported; the sandbox's own
/// process limit applies).
const MAX_PROCESSES: i64 = 60;

fn number(n: f64, integer: bool) -> Value {
    if integer || n.fract() == 0.0 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

/// `GET /config_info`.
pub fn config_info() -> Value {
    let mut out = Map::new();
    for (k, v) in [
        ("enable_wait_result", json!(true)),
        ("enable_compiler_options", json!(false)),
        ("allowed_languages_for_compile_options", json!([])),
        ("enable_command_line_arguments", json!(false)),
        ("enable_submission_delete", json!(false)),
        ("enable_callbacks", json!(true)),
        ("callbacks_max_tries", json!(CALLBACK_TRIES)),
        ("callbacks_timeout", json!(CALLBACK_TIMEOUT_S)),
        ("enable_additional_files", json!(false)),
        ("enable_batched_submissions", json!(true)),
        ("maintenance_mode", json!(false)),
        ("max_extract_size", json!(0)),
        ("submission_cache_duration", json!(0)),
        ("use_docs_as_homepage", json!(false)),
        ("max_queue_size", json!(MAX_QUEUE)),
    ] {
        out.insert(k.into(), v);
    }
    for l in &LIMITS {
        out.insert(l.name.into(), number(l.default, l.integer));
        out.insert(format!("max_{}", l.name), number(l.max, l.integer));
    }
    out.insert("max_processes_and_or_threads".into(), json!(MAX_PROCESSES));
    out.insert(
        "max_max_processes_and_or_threads".into(),
        json!(MAX_PROCESSES),
    );
    for (k, v) in [
        ("enable_per_process_and_thread_time_limit", false),
        ("allow_enable_per_process_and_thread_time_limit", false),
        ("enable_per_process_and_thread_memory_limit", true),
        ("allow_enable_per_process_and_thread_memory_limit", false),
        ("redirect_stderr_to_stdout", false),
        ("enable_network", false),
        ("allow_enable_network", false),
    ] {
        out.insert(k.into(), json!(v));
    }
    out.insert("max_submission_batch_size".into(), json!(MAX_BATCH));
    Value::Object(out)
}

/// How many times a callback is tried, and how long each try may take.
pub const CALLBACK_TRIES: u32 = 3;
pub const CALLBACK_TIMEOUT_S: u64 = 5;

/// Validation errors as Judge0 answers them: field → messages.
pub type Errors = Map<String, Value>;

fn add(errors: &mut Errors, field: &str, message: String) {
    let list = errors.entry(field).or_insert_with(|| json!([]));
    if let Value::Array(a) = list {
        a.push(Value::String(message));
    }
}

/// A validated Judge0 submission request.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub language: Language,
    pub source_code: Vec<u8>,
    pub stdin: Option<Vec<u8>>,
    pub expected_output: Option<Vec<u8>>,
    /// Every limit (Judge0's name → value), defaults filled in.
    pub settings: Map<String, Value>,
    pub callback_url: Option<String>,
    /// Beyond Judge0 (opt in): judge against this problem's tests with its checker, under its
    /// limits, instead of running `stdin` against `expected_output`.
    pub problem: Option<String>,
}

/// The largest source, stdin or expected output a submission may carry.
pub const MAX_TEXT: usize = 1 << 20;

/// Reads and checks a submission's JSON object; `Err` holds Judge0's field → messages.
pub fn parse(body: &Value, base64: bool, available: &[Language]) -> Result<Request, Box<Errors>> {
    let mut errors = Errors::new();
    let Some(obj) = body.as_object() else {
        add(
            &mut errors,
            "base",
            "the submission is not a JSON object".into(),
        );
        return Err(Box::new(errors));
    };
    let text = |errors: &mut Errors, field: &str| -> Option<Vec<u8>> {
        match obj.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => {
                let bytes = if base64 {
                    match decode_base64(s) {
                        Some(b) => b,
                        None => {
                            add(errors, field, "is not valid base64".into());
                            return None;
                        }
                    }
                } else {
                    s.as_bytes().to_vec()
                };
                if bytes.len() > MAX_TEXT {
                    add(errors, field, format!("is longer than {MAX_TEXT} bytes"));
                    return None;
                }
                Some(bytes)
            }
            Some(_) => {
                add(errors, field, "must be a string".into());
                None
            }
        }
    };
    let source_code = text(&mut errors, "source_code");
    if source_code.as_ref().is_none_or(|s| s.is_empty()) && !errors.contains_key("source_code") {
        add(&mut errors, "source_code", "can't be blank".into());
    }
    let stdin = text(&mut errors, "stdin");
    let expected_output = text(&mut errors, "expected_output");
    let language = match obj.get("language_id") {
        None | Some(Value::Null) => {
            add(&mut errors, "language_id", "can't be blank".into());
            None
        }
        Some(v) => match v
            .as_i64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        {
            Some(id) => {
                let found = available.iter().find(|l| i64::from(l.id) == id).copied();
                if found.is_none() {
                    add(
                        &mut errors,
                        "language_id",
                        format!("language with id {id} doesn't exist"),
                    );
                }
                found
            }
            None => {
                add(&mut errors, "language_id", "is not a number".into());
                None
            }
        },
    };
    let mut settings = Map::new();
    for l in &LIMITS {
        let value = match obj.get(l.name) {
            None | Some(Value::Null) => l.default,
            Some(v) => match v
                .as_f64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            {
                Some(x) if !x.is_finite() => {
                    add(&mut errors, l.name, "is not a number".into());
                    continue;
                }
                Some(x) if l.integer && x.fract() != 0.0 => {
                    add(&mut errors, l.name, "must be an integer".into());
                    continue;
                }
                Some(x) if x > l.max => {
                    add(
                        &mut errors,
                        l.name,
                        format!("must be less than or equal to {}", number(l.max, l.integer)),
                    );
                    continue;
                }
                Some(x) if l.min.map_or(x <= 0.0, |min| x < min) => {
                    let message = match l.min {
                        None => "must be greater than 0".to_string(),
                        Some(min) => format!(
                            "must be greater than or equal to {}",
                            number(min, l.integer)
                        ),
                    };
                    add(&mut errors, l.name, message);
                    continue;
                }
                Some(x) => x,
                None => {
                    add(&mut errors, l.name, "is not a number".into());
                    continue;
                }
            },
        };
        settings.insert(l.name.into(), number(value, l.integer));
    }
    if let (Some(cpu), Some(wall)) = (
        settings.get("cpu_time_limit").and_then(Value::as_f64),
        settings.get("wall_time_limit").and_then(Value::as_f64),
    ) {
        if wall < cpu {
            add(
                &mut errors,
                "wall_time_limit",
                format!("must be greater than or equal to cpu_time_limit ({cpu})"),
            );
        }
    }
    match obj.get("max_processes_and_or_threads") {
        None | Some(Value::Null) => {}
        Some(v) => match v.as_i64() {
            Some(n) if (1..=MAX_PROCESSES).contains(&n) => {}
            _ => add(
                &mut errors,
                "max_processes_and_or_threads",
                format!("must be an integer from 1 to {MAX_PROCESSES}"),
            ),
        },
    }
    settings.insert("max_processes_and_or_threads".into(), json!(MAX_PROCESSES));
    // Options this server cannot honour are refused, never silently ignored.
    for (field, why) in [
        (
            "compiler_options",
            "compiler options are not supported here",
        ),
        (
            "command_line_arguments",
            "command line arguments are not supported here",
        ),
        (
            "additional_files",
            "additional files are not supported here",
        ),
    ] {
        match obj.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s.is_empty() => {}
            Some(_) => add(&mut errors, field, why.into()),
        }
    }
    for (field, allowed) in [
        ("enable_per_process_and_thread_time_limit", Some(false)),
        ("enable_per_process_and_thread_memory_limit", None),
        ("redirect_stderr_to_stdout", Some(false)),
        ("enable_network", Some(false)),
    ] {
        match obj.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) if allowed.is_none_or(|a| a == *b) => {}
            Some(Value::Bool(_)) => add(&mut errors, field, "cannot be changed here".into()),
            Some(_) => add(&mut errors, field, "must be true or false".into()),
        }
    }
    let callback_url = match obj.get("callback_url") {
        None | Some(Value::Null) => None,
        Some(Value::String(u)) if u.is_empty() => None,
        Some(Value::String(u)) => match callback_target(u) {
            Ok(_) => Some(u.clone()),
            Err(e) => {
                add(&mut errors, "callback_url", e);
                None
            }
        },
        Some(_) => {
            add(&mut errors, "callback_url", "must be a string".into());
            None
        }
    };
    const KNOWN: [&str; 25] = [
        "source_code",
        "language_id",
        "stdin",
        "expected_output",
        "cpu_time_limit",
        "cpu_extra_time",
        "wall_time_limit",
        "memory_limit",
        "stack_limit",
        "max_file_size",
        "number_of_runs",
        "max_processes_and_or_threads",
        "compiler_options",
        "command_line_arguments",
        "additional_files",
        "enable_per_process_and_thread_time_limit",
        "enable_per_process_and_thread_memory_limit",
        "redirect_stderr_to_stdout",
        "enable_network",
        "callback_url",
        // Ours, beyond Judge0: judge against a problem's tests.
        "problem",
        // Read-only fields a client may send back: ignored, as Judge0 does.
        "token",
        "status",
        "status_id",
        "language",
    ];
    for key in obj.keys() {
        if !KNOWN.contains(&key.as_str()) && !FIELDS.contains(&key.as_str()) {
            add(&mut errors, key, "is not a submission field".into());
        }
    }
    let problem = match obj.get("problem") {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => {
            if let Err(why) = crate::store::check_problem_name(name) {
                add(&mut errors, "problem", why);
            } else if name == PROBLEM {
                add(
                    &mut errors,
                    "problem",
                    format!("`{PROBLEM}` is not a problem to judge against"),
                );
            }
            for given in ["stdin", "expected_output"] {
                if obj.get(given).is_some_and(|v| !v.is_null()) {
                    add(
                        &mut errors,
                        given,
                        "cannot be given with problem: the problem's tests are the input".into(),
                    );
                }
            }
            Some(name.clone())
        }
        Some(_) => {
            add(&mut errors, "problem", "must be a string".into());
            None
        }
    };
    if !errors.is_empty() {
        return Err(Box::new(errors));
    }
    Ok(Request {
        language: language.expect("checked"),
        source_code: source_code.expect("checked"),
        stdin,
        expected_output,
        settings,
        callback_url,
        problem,
    })
}

/// `http://host:port/path` of a callback URL: the address and the path. Only `http://`.
pub fn callback_target(url: &str) -> Result<(String, String), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| "must be an http:// URL".to_string())?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if host.is_empty() || host.contains(['@', ' ']) || path.contains([' ', '\r', '\n']) {
        return Err("is not a URL like http://host:port/path".into());
    }
    let host = if host.contains(':') && !host.ends_with(']') {
        host.to_string()
    } else {
        format!("{host}:80")
    };
    Ok((host, path.to_string()))
}

/// The one-test native package a request is judged as, packed (`store::pack`).
pub fn package(request: &Request) -> Result<Vec<u8>, Error> {
    let get = |k: &str| request.settings[k].as_f64().expect("a number");
    let memory_mib = get("memory_limit") / 1024.0;
    let stack_mib = (get("stack_limit") / 1024.0).min(memory_mib);
    let output_mib = get("max_file_size") / 1024.0;
    let toml = format!(
        "name = \"Judge0 submission\"\n\n[limits]\ntime_limit = {:?}\nwall_time_limit = {:?}\nmemory = {:?}\nstack = {:?}\noutput = {:?}\n\n[checker]\nkind = \"lines\"\n",
        get("cpu_time_limit"),
        get("wall_time_limit"),
        memory_mib,
        stack_mib,
        output_mib,
    );
    let dir = tempfile::tempdir().map_err(|e| Error::Io(format!("a scratch folder: {e}")))?;
    let io = |e: std::io::Error| Error::Io(format!("{}: {e}", dir.path().display()));
    std::fs::write(dir.path().join("problem.toml"), toml).map_err(io)?;
    std::fs::create_dir(dir.path().join("tests")).map_err(io)?;
    std::fs::write(
        dir.path().join("tests/1.in"),
        request.stdin.as_deref().unwrap_or_default(),
    )
    .map_err(io)?;
    std::fs::write(
        dir.path().join("tests/1.ans"),
        request.expected_output.as_deref().unwrap_or_default(),
    )
    .map_err(io)?;
    crate::store::pack(dir.path())
}

/// A random version 4 UUID, from the kernel's generator.
pub fn uuid() -> std::io::Result<String> {
    let mut b = [0u8; 16];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut b)?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

/// Stores the request's package and source and queues it as a submission of [`PROBLEM`],
/// with its Judge0 row, in one transaction; returns its token.
pub fn submit(
    client: &mut Db,
    request: &Request,
    submitter: Option<&str>,
    base64: bool,
) -> Result<String, Error> {
    let token = uuid().map_err(|e| Error::Io(format!("/dev/urandom: {e}")))?;
    // Its own one-test package, or (opt in) a problem's current one.
    let package = match &request.problem {
        None => Some(package(request)?),
        Some(_) => None,
    };
    let mut tx = client.transaction()?;
    let source_hash = crate::store::hash(&request.source_code);
    tx.execute(
        "INSERT INTO blobs (hash, data) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING",
        &[&source_hash, &request.source_code],
    )?;
    let (problem, package_hash) = match (&request.problem, package) {
        (Some(name), _) => {
            let found = tx.query_opt("SELECT package FROM problems WHERE name = $1", &[name])?;
            let Some(row) = found else {
                return Err(Error::Unknown(format!("no problem named {name}")));
            };
            (name.as_str(), row.get::<_, String>(0))
        }
        (None, Some(package)) => {
            let package_hash = crate::store::hash(&package);
            tx.execute(
                "INSERT INTO blobs (hash, data) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING",
                &[&package_hash, &package],
            )?;
            tx.execute(
                "INSERT INTO problems (name, package) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
                &[&PROBLEM, &package_hash],
            )?;
            (PROBLEM, package_hash)
        }
        (None, None) => unreachable!("a package is made when no problem is named"),
    };
    let id: i64 = tx
        .query_one(
            "INSERT INTO submissions (problem, package, language, filename, source, submitter)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            &[
                &problem,
                &package_hash,
                &request.language.ours,
                &request.language.file,
                &source_hash,
                &submitter,
            ],
        )?
        .get(0);
    tx.execute("INSERT INTO jobs (submission) VALUES ($1)", &[&id])?;
    let callback_state = request.callback_url.as_ref().map(|_| "pending");
    tx.execute(
        "INSERT INTO judge0_submissions (token, submission, language_id, source_code, stdin,
                expected_output, settings, callback_url, callback_base64, callback_state)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        &[
            &token,
            &id,
            &request.language.id,
            &request.source_code,
            &request.stdin,
            &request.expected_output,
            &Value::Object(request.settings.clone()).to_string(),
            &request.callback_url,
            &base64,
            &callback_state,
        ],
    )?;
    tx.notify(QUEUED, "")?;
    tx.commit()?;
    Ok(token)
}

/// Every field a submission has, in Judge0's order.
pub const FIELDS: [&str; 33] = [
    "source_code",
    "language_id",
    "stdin",
    "expected_output",
    "stdout",
    "status_id",
    "created_at",
    "finished_at",
    "time",
    "memory",
    "stderr",
    "token",
    "number_of_runs",
    "cpu_time_limit",
    "cpu_extra_time",
    "wall_time_limit",
    "memory_limit",
    "stack_limit",
    "max_processes_and_or_threads",
    "enable_per_process_and_thread_time_limit",
    "enable_per_process_and_thread_memory_limit",
    "max_file_size",
    "compile_output",
    "exit_code",
    "exit_signal",
    "message",
    "wall_time",
    "compiler_options",
    "command_line_arguments",
    "redirect_stderr_to_stdout",
    "callback_url",
    "status",
    "language",
];

/// The fields a read answers when it names none.
pub const DEFAULT_FIELDS: [&str; 8] = [
    "token",
    "stdout",
    "stderr",
    "compile_output",
    "message",
    "time",
    "memory",
    "status",
];

/// The fields `?fields=` asks for (`*`: all); `Err` names the unknown ones.
pub fn fields(asked: Option<&str>) -> Result<Vec<&'static str>, String> {
    let Some(asked) = asked.filter(|a| !a.trim().is_empty()) else {
        return Ok(DEFAULT_FIELDS.to_vec());
    };
    if asked.trim() == "*" {
        return Ok(FIELDS.to_vec());
    }
    let mut out = Vec::new();
    let mut unknown = Vec::new();
    for f in asked.split(',').map(str::trim).filter(|f| !f.is_empty()) {
        match FIELDS.iter().find(|k| **k == f) {
            Some(k) => out.push(*k),
            None => unknown.push(f.to_string()),
        }
    }
    if unknown.is_empty() {
        Ok(out)
    } else {
        Err(format!(
            "invalid fields: [{}]; the fields are {}",
            unknown.join(", "),
            FIELDS.join(", ")
        ))
    }
}

const TIME: &str = "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'";

/// A submission read back: every field, and the submitter token's name (none: an organiser).
pub type Found = Option<(Map<String, Value>, Option<String>)>;

/// The stored submissions `tokens`, each as every field (base64 encoded or not), and who
/// submitted it; None for a token that is not one.
pub fn read(client: &mut Db, tokens: &[String], base64: bool) -> Result<Vec<Found>, Error> {
    // The tokens travel as one JSON array, which each engine spreads into rows.
    let listed = match client.engine() {
        Engine::Postgres => "SELECT json_array_elements_text($1::text::json)",
        Engine::Sqlite => "SELECT value FROM json_each($1)",
    };
    let rows = client.query(
        &format!(
            "SELECT j.token, j.language_id, j.source_code, j.stdin, j.expected_output, j.settings,
                    j.callback_url, j.stdout, j.stderr, j.compile_output, j.wall_ms,
                    s.state, s.verdict, s.error, s.time_ms, s.memory_kib, s.submitter,
                    to_char(s.created_at AT TIME ZONE 'UTC', {TIME}),
                    to_char(s.finished_at AT TIME ZONE 'UTC', {TIME}),
                    t.message, s.problem
             FROM judge0_submissions j JOIN submissions s ON s.id = j.submission
             LEFT JOIN test_results t ON t.submission = s.id AND t.ordinal = 1
             WHERE j.token IN ({listed})"
        ),
        &[&serde_json::to_string(tokens).unwrap_or_default()],
    )?;
    let mut found: std::collections::HashMap<String, (Map<String, Value>, Option<String>)> =
        Default::default();
    for r in rows {
        let token: String = r.get(0);
        let language_id: i32 = r.get(1);
        let text = |b: Option<Vec<u8>>| -> Value {
            match b {
                None => Value::Null,
                Some(b) if base64 => Value::String(encode_base64(&b)),
                Some(b) => Value::String(String::from_utf8_lossy(&b).into_owned()),
            }
        };
        let out_text = |s: Option<String>| text(s.map(String::into_bytes));
        let expected: Option<Vec<u8>> = r.get(4);
        let state: String = r.get(11);
        let verdict: Option<String> = r.get(12);
        let error: Option<String> = r.get(13);
        let test_message: Option<String> = r.get(19);
        // Judged on a problem's tests (opt in), a wrong answer is one: there is an expected
        // output, the problem's.
        let on_problem = r.get::<_, String>(20) != PROBLEM;
        let status_id = match (state.as_str(), &verdict) {
            ("queued", _) => 1,
            (_, None) => 2,
            (_, Some(v)) => status_id(
                v,
                expected.is_some() || on_problem,
                test_message.as_deref().unwrap_or(""),
            ),
        };
        let done = verdict.is_some();
        let (exit_code, exit_signal) = match (done, test_message.as_deref().map(ending)) {
            (true, Some(Ending::Code(c))) => (json!(c), Value::Null),
            (true, Some(Ending::Signal(s))) => (Value::Null, json!(s)),
            (true, Some(Ending::Unknown)) if matches!(status_id, 3 | 4) => (json!(0), Value::Null),
            _ => (Value::Null, Value::Null),
        };
        let message = match status_id {
            13 => error.or(test_message.clone()),
            5 | 7..=12 => test_message.filter(|m| !m.is_empty()),
            _ => None,
        };
        let seconds = |ms: Option<i64>| match ms {
            Some(ms) if done && status_id != 6 => json!(format!("{:.3}", ms as f64 / 1000.0)),
            _ => Value::Null,
        };
        let settings: Map<String, Value> = serde_json::from_str(&r.get::<_, String>(5))
            .ok()
            .unwrap_or_default();
        let mut m = Map::new();
        m.insert("source_code".into(), text(Some(r.get(2))));
        m.insert("language_id".into(), json!(language_id));
        m.insert("stdin".into(), text(r.get(3)));
        m.insert("expected_output".into(), text(expected.clone()));
        m.insert("stdout".into(), out_text(r.get(7)));
        m.insert("status_id".into(), json!(status_id));
        m.insert("created_at".into(), json!(r.get::<_, Option<String>>(17)));
        m.insert("finished_at".into(), json!(r.get::<_, Option<String>>(18)));
        m.insert("time".into(), seconds(r.get(14)));
        let memory = r
            .get::<_, Option<i64>>(15)
            .filter(|_| done && status_id != 6);
        m.insert("memory".into(), json!(memory));
        m.insert("stderr".into(), out_text(r.get(8)));
        m.insert("token".into(), json!(token));
        for (k, v) in &settings {
            m.insert(k.clone(), v.clone());
        }
        m.insert(
            "enable_per_process_and_thread_time_limit".into(),
            json!(false),
        );
        m.insert(
            "enable_per_process_and_thread_memory_limit".into(),
            json!(true),
        );
        let compile = r.get::<_, Option<String>>(9).filter(|c| !c.is_empty());
        m.insert("compile_output".into(), out_text(compile));
        m.insert("exit_code".into(), exit_code);
        m.insert("exit_signal".into(), exit_signal);
        m.insert("message".into(), out_text(message));
        m.insert("wall_time".into(), seconds(r.get(10)));
        m.insert("compiler_options".into(), Value::Null);
        m.insert("command_line_arguments".into(), Value::Null);
        m.insert("redirect_stderr_to_stdout".into(), json!(false));
        m.insert("callback_url".into(), json!(r.get::<_, Option<String>>(6)));
        m.insert("status".into(), status(status_id));
        let name = LANGUAGES
            .iter()
            .find(|l| l.id == language_id)
            .map_or("", |l| l.name);
        m.insert(
            "language".into(),
            json!({ "id": language_id, "name": name }),
        );
        found.insert(token, (m, r.get(16)));
    }
    Ok(tokens.iter().map(|t| found.remove(t)).collect())
}

/// The submission `all` cut down to `fields`, in their order.
pub fn select(all: &Map<String, Value>, fields: &[&str]) -> Value {
    let mut out = Map::new();
    for f in fields {
        out.insert((*f).into(), all.get(*f).cloned().unwrap_or(Value::Null));
    }
    Value::Object(out)
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub fn encode_base64(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64, padding optional, line breaks ignored (Ruby's and Python's encoders may
/// break lines); None when it is not base64.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0;
    let mut padding = 0;
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                padding += 1;
                continue;
            }
            b'\n' | b'\r' => continue,
            _ => return None,
        };
        if padding > 0 {
            return None;
        }
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    (bits < 6 && padding <= 2).then_some(out)
}

#[cfg(test)]
mod tests;
