//! The HTTP API (the book's "Its HTTP API" lists every route) and the competitive-companion receiver.
//! Every route of the page's port passes `access::gate` first; a POST must carry JSON
//! (`Content-Type: application/json`), which a web page of another site cannot send without a
//! CORS preflight that is never answered.

use super::http::{Request, Response};
use super::{access, cc, contest, judging, Job, Practice};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::mpsc::SyncSender;
use std::time::Duration;

/// History entries `GET /api/submissions` returns at most (`limit` may ask for fewer).
const HISTORY_LIMIT: i64 = 1000;
/// Bytes of a test's input or answer shown by `GET /api/problems/{id}`.
const PREVIEW: usize = 64 * 1024;
/// Tests shown with their content by `GET /api/problems/{id}`.
const PREVIEW_TESTS: usize = 50;
/// The page's Content-Security-Policy. Inline style attributes are allowed (the page sets some);
/// scripts only from the page's own files.
pub const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/// The longest stress run the page may ask for.
const MAX_STRESS_SECONDS: f64 = 600.0;

/// The competitive-companion port: a JSON POST of a sane size, answered at once; the problem
/// is stored afterwards by the receiving thread.
pub fn receiver(practice: &Practice, tx: &SyncSender<cc::Received>, r: &Request) -> Response {
    if !access::host_ok(r, practice.cc_port) {
        return Response::error(403, "the Host header does not name this server");
    }
    if !access::extension_origin_ok(r) {
        return Response::error(403, "only the browser extension may send problems here");
    }
    if r.method != "POST" {
        return Response::error(405, "send a problem with POST (competitive-companion)")
            .with_header("Allow", "POST");
    }
    if !is_json(r) {
        return Response::error(415, "send Content-Type: application/json");
    }
    let problem = match cc::parse(&r.body) {
        Ok(p) => p,
        Err(e) => return Response::error(400, e),
    };
    match tx.try_send(problem) {
        Ok(()) => Response::json(200, &json!({"ok": true})),
        Err(_) => Response::error(503, "too many problems at once; send again"),
    }
}

fn is_json(r: &Request) -> bool {
    r.header("content-type")
        .map(|t| {
            t.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .eq_ignore_ascii_case("application/json")
        })
        .unwrap_or(false)
}

/// The page's port.
pub fn handle(practice: &Practice, r: &Request) -> Response {
    if let Some((status, why)) = access::gate(r, practice.port, &practice.token) {
        // The page's own address in a browser without the token: a page that says how to get
        // in (no script; the same policy as the page).
        let page = matches!(r.path.as_str(), "/" | "/index.html");
        if status == 401 && r.method == "GET" && page {
            return Response::bytes(
                401,
                "text/html; charset=utf-8",
                super::page::locked().to_vec(),
            )
            .with_header("Content-Security-Policy", PAGE_POLICY)
            .with_header("Referrer-Policy", "no-referrer");
        }
        return Response::error(status, why);
    }
    if r.method == "POST" && !is_json(r) {
        return Response::error(415, "send Content-Type: application/json");
    }
    let body = || -> Result<Value, Response> {
        serde_json::from_slice(&r.body)
            .map_err(|e| Response::error(400, format!("the body is not JSON: {e}")))
    };
    let segments: Vec<&str> = r.path.split('/').skip(1).collect();
    let result = match (r.method.as_str(), segments.as_slice()) {
        ("GET", [""]) if r.query("token").is_some() => {
            // Sets the cookie and drops the token from the address bar.
            return Response::bytes(303, "text/plain", b"see /\n".to_vec())
                .with_header("Location", "/")
                .with_header("Set-Cookie", access::cookie(&practice.token));
        }
        ("GET", ["api", "problems"]) => Ok(problems(practice)),
        ("POST", ["api", "problems"]) => body().and_then(|b| post_problem(practice, &b)),
        ("GET", ["api", "problems", id]) => problem(practice, id),
        ("POST", ["api", "problems", id, "tests"]) => {
            body().and_then(|b| add_test(practice, id, &b))
        }
        ("POST", ["api", "problems", id, "tests", "import"]) => {
            body().and_then(|b| import_tests(practice, id, &b))
        }
        ("DELETE", ["api", "problems", id, "tests", name]) => practice
            .store
            .remove_test(id, name)
            .map(|_| json!({"ok": true}))
            .map_err(|e| Response::error(404, e)),
        ("POST", ["api", "submissions"]) => body().and_then(|b| post_submission(practice, &b)),
        ("GET", ["api", "submissions"]) => history(practice, r),
        ("GET", ["api", "submissions", id]) => submission(practice, id),
        ("GET", ["api", "watches"]) => Ok(practice.watches.json()),
        ("DELETE", ["api", "watches", id]) => match id.parse::<u64>() {
            Ok(n) if practice.watches.remove(n) => {
                let _ = practice.db.remove_watch(n as i64);
                Ok(json!({"ok": true}))
            }
            _ => Err(Response::error(404, format!("no watch `{id}`"))),
        },
        ("GET", ["api", "languages"]) => Ok(languages(practice)),
        ("GET", ["api", "events"]) => return events(practice),
        ("GET", ["api", "contests"]) => contests(practice),
        ("POST", ["api", "contests"]) => body().and_then(|b| post_contest(practice, &b)),
        ("POST", ["api", "contests", id, "start"]) => {
            body().and_then(|b| start_contest(practice, id, &b))
        }
        ("GET", ["api", "contests", id, "scoreboard"]) => scoreboard(practice, id),
        ("POST", ["api", "problems", id, "interactor"]) => {
            body().and_then(|b| attach_interactor(practice, id, &b))
        }
        ("DELETE", ["api", "problems", id, "interactor"]) => practice
            .store
            .detach_interactor(id)
            .map(|removed| {
                practice
                    .hub
                    .publish(&json!({"event": "problem_changed", "problem": id}));
                json!({"removed": removed})
            })
            .map_err(|e| Response::error(404, e)),
        ("GET", ["api", "problems", id, "interactions", name]) => {
            return interaction_file(practice, id, name)
        }
        ("POST", ["api", "problems", id, "interactions", name, "replay"]) => {
            body().and_then(|b| replay(practice, id, name, &b))
        }
        ("POST", ["api", "console"]) => body().and_then(|b| post_console(practice, &b)),
        ("GET", ["api", "console", id]) => console_id(id).and_then(|n| {
            practice
                .consoles
                .json(n)
                .ok_or_else(|| Response::error(404, format!("no console {n}")))
        }),
        ("POST", ["api", "console", id, action]) => {
            body().and_then(|b| console_action(practice, id, action, &b))
        }
        ("POST", ["api", "compare"]) => body().and_then(|b| post_compare(practice, &b)),
        ("GET", ["api", "compare", id]) => {
            let all = practice.compares.lock().unwrap_or_else(|e| e.into_inner());
            id.parse::<usize>()
                .ok()
                .and_then(|n| all.get(n).cloned())
                .ok_or_else(|| Response::error(404, format!("no comparison `{id}`")))
        }
        ("POST", ["api", "stress"]) => body().and_then(|b| post_stress(practice, &b)),
        ("GET", ["api", "stress", id]) => stress_state(practice, id),
        (_, ["api", ..]) => Err(Response::error(
            404,
            format!("no route {} {}", r.method, r.path),
        )),
        ("GET", _) => {
            return match super::page::asset(&r.path) {
                // Only the page's own files run or load: a statement's HTML that slipped
                // something past the renderer still cannot load or send anything elsewhere.
                Some((kind, bytes)) => Response::bytes(200, kind, bytes.to_vec())
                    .with_header("Content-Security-Policy", PAGE_POLICY)
                    .with_header("Referrer-Policy", "no-referrer"),
                None => Response::error(404, format!("no page {}", r.path)),
            };
        }
        _ => Err(Response::error(
            405,
            format!("{} is not served here", r.method),
        )),
    };
    match result {
        Ok(v) => Response::json(200, &v),
        Err(response) => response,
    }
}

fn bad(message: impl Into<String>) -> Response {
    Response::error(400, message)
}

/// One problem's entry in the list.
fn problem_entry(practice: &Practice, id: &str, stats: &super::db::Stats) -> Value {
    let meta = practice.store.meta(id);
    let mut v = match practice.store.load(id) {
        Ok(p) => json!({
            "id": id,
            "name": p.name,
            "format": p.format.name(),
            "time_limit_ms": p.limits.time.as_millis() as u64,
            "memory_mib": p.limits.memory >> 20,
            "tests": p.tests.len(),
            "input_file": p.io.input,
            "output_file": p.io.output,
        }),
        Err(e) => json!({"id": id, "name": id, "error": e, "tests": 0}),
    };
    v["group"] = json!(meta.group);
    v["url"] = json!(meta.url);
    v["interactive"] = json!(meta.interactive);
    // Received without samples: nothing can be judged until a test is added.
    v["needs_tests"] = json!(v["tests"] == json!(0) && v.get("error").is_none());
    v["received_at"] = json!((meta.received_at > 0).then_some(meta.received_at));
    let (count, first, accepted) = stats.get(id).cloned().unwrap_or((0, 0, None));
    v["submissions"] = json!(count);
    v["solved"] = json!(accepted.is_some());
    v["first_submission_at"] = json!((count > 0).then_some(first));
    v["accepted_at"] = json!(accepted);
    v["attempts"] = json!(practice.db.attempts_before_ac(id).unwrap_or(0));
    // From receiving the problem (or the first submission) to the first accepted submission.
    let from = if meta.received_at > 0 {
        meta.received_at
    } else {
        first
    };
    v["time_to_ac_ms"] = json!(accepted.map(|a| (a - from).max(0)));
    v
}

fn problems(practice: &Practice) -> Value {
    let stats = practice.db.problem_stats().unwrap_or_default();
    Value::Array(
        practice
            .store
            .ids()
            .iter()
            .map(|id| problem_entry(practice, id, &stats))
            .collect(),
    )
}

fn problem(practice: &Practice, id: &str) -> Result<Value, Response> {
    let dir = practice
        .store
        .problem_dir(id)
        .ok_or_else(|| Response::error(404, format!("no problem `{id}`")))?;
    let stats = practice.db.problem_stats().unwrap_or_default();
    let mut v = problem_entry(practice, id, &stats);
    if let Ok(p) = practice.store.load(id) {
        let preview = |path: &Path| -> (String, bool) {
            let bytes = std::fs::read(path).unwrap_or_default();
            let cut = bytes.len() > PREVIEW;
            (
                String::from_utf8_lossy(&bytes[..bytes.len().min(PREVIEW)]).into_owned(),
                cut,
            )
        };
        let samples: Vec<Value> = p
            .tests
            .iter()
            .take(PREVIEW_TESTS)
            .map(|t| {
                let (input, cut_in) = preview(&t.input);
                let (output, cut_out) = preview(&t.answer);
                json!({
                    "name": t.name,
                    "input": input,
                    "output": output,
                    "truncated": cut_in || cut_out,
                    "custom": t.name.starts_with("custom-"),
                })
            })
            .collect();
        v["samples"] = Value::Array(samples);
        v["source"] = json!(p.source);
        v["interactor"] = json!(p.interactor.as_ref().map(|i| json!({
            "file": i.source.file_name().map(|n| n.to_string_lossy().into_owned()),
            "protocol": match i.protocol {
                judge_core::package::Protocol::Kattis => "kattis",
                judge_core::package::Protocol::Testlib => "testlib",
            },
        })));
    }
    v["interactions"] = json!(practice.store.interactions(id));
    let statement = [
        "statement.md",
        "problem_statement/problem.en.md",
        "problem_statement/problem.md",
    ]
    .iter()
    .map(|s| dir.join(s))
    .find(|p| p.is_file())
    .and_then(|p| std::fs::read_to_string(p).ok());
    v["statement_html"] = json!(statement.map(|md| super::statement::render(&md)));
    Ok(v)
}

fn post_problem(practice: &Practice, body: &Value) -> Result<Value, Response> {
    let problem = cc::parse(body.to_string().as_bytes()).map_err(bad)?;
    let id = practice
        .receive(&problem)
        .map_err(|e| Response::error(500, e))?;
    Ok(json!({ "id": id }))
}

fn add_test(practice: &Practice, id: &str, body: &Value) -> Result<Value, Response> {
    let text = |key: &str| -> Result<String, Response> {
        match body.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            None | Some(Value::Null) if key == "output" => Ok(String::new()),
            _ => Err(bad(format!("`{key}` must be a string"))),
        }
    };
    let (input, output) = (text("input")?, text("output")?);
    if practice.store.problem_dir(id).is_none() {
        return Err(Response::error(404, format!("no problem `{id}`")));
    }
    let name = practice
        .store
        .add_test(id, &input, &output)
        .map_err(|e| Response::error(500, e))?;
    practice
        .hub
        .publish(&json!({"event": "problem_changed", "problem": id, "test": name}));
    Ok(json!({ "name": name }))
}

/// `POST /api/problems/{id}/tests/import`: `{"path"}` (a folder or a `.zip`, read as the user
/// who started the server), `{"zip"}` (base64) or `{"files": [{"name", "text"}]}` (what the
/// page picked); every `.in` with its `.ans`/`.out` becomes a test of the user's, all or none.
fn import_tests(practice: &Practice, id: &str, body: &Value) -> Result<Value, Response> {
    use super::import;
    if practice.store.problem_dir(id).is_none() {
        return Err(Response::error(404, format!("no problem `{id}`")));
    }
    let files = match (body.get("path"), body.get("zip"), body.get("files")) {
        (Some(Value::String(path)), None, None) => {
            let path = PathBuf::from(path);
            if !path.is_absolute() {
                return Err(bad(format!("{}: give an absolute path", path.display())));
            }
            let owned = path.clone();
            super::user::as_user(&practice.user, &path, move || {
                if owned.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip")) {
                    let bytes = super::user::read_capped_as_caller(&owned, import::MAX_FILE)?;
                    import::unzip(&bytes).map_err(|e| format!("{}: {e}", owned.display()))
                } else {
                    import::folder(&owned)
                }
            })
            .map_err(|e| Response::error(422, e))?
        }
        (None, Some(Value::String(zip)), None) => {
            let bytes = import::base64_decode(zip).map_err(|e| bad(format!("`zip`: {e}")))?;
            import::unzip(&bytes).map_err(|e| Response::error(422, e))?
        }
        (None, None, Some(Value::Array(files))) => files
            .iter()
            .map(|f| match (f.get("name"), f.get("text")) {
                (Some(Value::String(name)), Some(Value::String(text))) => Ok(import::Found {
                    name: name.clone(),
                    bytes: text.as_bytes().to_vec(),
                }),
                _ => Err(bad("each of `files` is {\"name\", \"text\"}")),
            })
            .collect::<Result<_, _>>()?,
        _ => {
            return Err(bad(
                "give one of `path` (a folder or a .zip), `zip` (base64) or `files` ([{\"name\", \"text\"}])",
            ))
        }
    };
    let (pairs, skipped) = import::pairs(files).map_err(|e| Response::error(422, e))?;
    let names = practice
        .store
        .import_tests(id, &pairs)
        .map_err(|e| Response::error(500, e))?;
    practice
        .hub
        .publish(&json!({"event": "problem_changed", "problem": id, "imported": names.len()}));
    let added: Vec<Value> = pairs
        .iter()
        .zip(&names)
        .map(|(p, n)| json!({"from": p.from, "name": n}))
        .collect();
    Ok(json!({ "added": added, "skipped": skipped }))
}

/// `{"source", "language"}` or `{"path"}` in `body` (or under `key` of it).
fn source_of(practice: &Practice, spec: &Value) -> Result<super::Source, Response> {
    match (spec.get("source"), spec.get("path"), spec) {
        (_, _, Value::String(path)) => practice
            .from_path(Path::new(path))
            .map_err(|e| Response::error(422, e)),
        (Some(Value::String(text)), None, _) => {
            let language = spec
                .get("language")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("`language` is needed with `source` (e.g. \"C++\")"))?;
            practice.pasted(text, language).map_err(bad)
        }
        (None, Some(Value::String(path)), _) => practice
            .from_path(Path::new(path))
            .map_err(|e| Response::error(422, e)),
        _ => Err(bad(
            "give either `source` (the text) with `language`, or `path` (an absolute file name)",
        )),
    }
}

fn post_submission(practice: &Practice, body: &Value) -> Result<Value, Response> {
    let problem = body
        .get("problem")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("`problem` (an id from /api/problems) is missing"))?;
    if practice.store.problem_dir(problem).is_none() {
        return Err(Response::error(404, format!("no problem `{problem}`")));
    }
    if practice
        .store
        .load(problem)
        .is_ok_and(|p| p.tests.is_empty())
    {
        return Err(Response::error(409, super::no_tests(problem)));
    }
    let source = source_of(practice, body)?;
    let id = practice
        .submit(problem, &source)
        .map_err(|e| Response::error(500, e))?;
    let mut out = json!({ "id": id });
    if let Some(path) = &source.path {
        let shown = path.display().to_string();
        let watch = practice
            .db
            .add_watch(problem, &shown)
            .map_err(|e| Response::error(500, e))?;
        let sha = super::store::hex_sha(source.text.as_bytes());
        practice
            .watches
            .add(watch as u64, problem, path.clone(), sha, true)
            .map_err(|e| {
                let _ = practice.db.remove_watch(watch);
                Response::error(409, e)
            })?;
        out["watch"] = json!(watch);
    }
    Ok(out)
}

fn parse_id(id: &str) -> Result<i64, Response> {
    id.parse::<i64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| Response::error(404, format!("no such id `{id}`")))
}

fn submission(practice: &Practice, id: &str) -> Result<Value, Response> {
    let n = parse_id(id)?;
    match practice.db.get(n, true) {
        Ok(Some(v)) => Ok(v),
        Ok(None) => Err(Response::error(404, format!("no submission {n}"))),
        Err(e) => Err(Response::error(500, e)),
    }
}

fn history(practice: &Practice, r: &Request) -> Result<Value, Response> {
    let limit = match r.query("limit") {
        Some(l) => l
            .parse::<i64>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| bad("`limit` must be a positive number"))?
            .min(HISTORY_LIMIT),
        None => HISTORY_LIMIT,
    };
    let problem = r.query("problem").filter(|p| !p.is_empty());
    practice
        .db
        .list(problem, limit)
        .map(Value::Array)
        .map_err(|e| Response::error(500, e))
}

fn languages(practice: &Practice) -> Value {
    Value::Array(
        practice
            .languages
            .general()
            .map(|l| json!({"name": l.name, "extensions": l.extensions}))
            .collect(),
    )
}

fn events(practice: &Practice) -> Response {
    let Some(rx) = practice.hub.subscribe() else {
        return Response::error(503, "too many event streams open; close a tab");
    };
    Response::Stream(Box::new(move |out| {
        use std::sync::mpsc::RecvTimeoutError;
        if out
            .write_all(b"retry: 2000\n\ndata: {\"event\":\"hello\"}\n\n")
            .and_then(|_| out.flush())
            .is_err()
        {
            return;
        }
        loop {
            let chunk = match rx.recv_timeout(Duration::from_secs(15)) {
                Ok(text) if text.is_empty() => continue,
                Ok(text) => format!("data: {text}\n\n"),
                // A comment: keeps proxies and the browser from timing out, and finds a
                // client that is gone.
                Err(RecvTimeoutError::Timeout) => ": keep-alive\n\n".to_string(),
                Err(RecvTimeoutError::Disconnected) => return,
            };
            if out
                .write_all(chunk.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                return;
            }
        }
    }))
}

fn contests(practice: &Practice) -> Result<Value, Response> {
    let now = practice.now();
    practice
        .db
        .contests()
        .map(|all| Value::Array(all.iter().map(|c| contest::contest_json(c, now)).collect()))
        .map_err(|e| Response::error(500, e))
}

/// `duration_min` (1 to 10080, default 120) and `freeze_min` (0 to the duration, optional).
fn timing(body: &Value) -> Result<(i64, Option<i64>), Response> {
    let duration = match body.get("duration_min") {
        None | Some(Value::Null) => 120,
        Some(v) => v
            .as_i64()
            .filter(|d| (1..=10080).contains(d))
            .ok_or_else(|| {
                bad("`duration_min` must be a whole number of minutes from 1 to 10080")
            })?,
    };
    let freeze = match body.get("freeze_min") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_i64()
                .filter(|f| (0..=duration).contains(f))
                .ok_or_else(|| {
                    bad("`freeze_min` must be a whole number of minutes up to the duration")
                })?,
        ),
    };
    Ok((duration, freeze))
}

fn post_contest(practice: &Practice, body: &Value) -> Result<Value, Response> {
    let name = body
        .get("name")
        .and_then(Value::as_str)
        .map(|n| {
            n.trim()
                .chars()
                .filter(|c| !c.is_control())
                .take(200)
                .collect::<String>()
        })
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "Virtual contest".into());
    let problems: Vec<String> = body
        .get("problems")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("`problems` must be a list of problem ids"))?
        .iter()
        .map(|p| {
            p.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad("`problems` must be a list of problem ids"))
        })
        .collect::<Result<_, _>>()?;
    if problems.is_empty() || problems.len() > 100 {
        return Err(bad("a contest has 1 to 100 problems"));
    }
    for p in &problems {
        if practice.store.problem_dir(p).is_none() {
            return Err(Response::error(404, format!("no problem `{p}`")));
        }
        if problems.iter().filter(|q| *q == p).count() > 1 {
            return Err(bad(format!("problem `{p}` is listed twice")));
        }
    }
    let (duration, freeze) = timing(body)?;
    let now = practice.now();
    let id = practice
        .db
        .create_contest(&super::db::Contest {
            id: 0,
            name,
            batch: None,
            batch_size: None,
            created_at: now,
            start_at: Some(now),
            duration_min: duration,
            freeze_min: freeze,
            problems,
        })
        .map_err(|e| Response::error(500, e))?;
    practice
        .hub
        .publish(&json!({"event": "contest_created", "contest": id}));
    Ok(json!({ "id": id }))
}

fn start_contest(practice: &Practice, id: &str, body: &Value) -> Result<Value, Response> {
    let n = parse_id(id)?;
    let (duration, freeze) = timing(body)?;
    match practice
        .db
        .start_contest(n, practice.now(), duration, freeze)
    {
        Ok(true) => {
            practice
                .hub
                .publish(&json!({"event": "contest_started", "contest": n}));
            Ok(json!({"id": n}))
        }
        Ok(false) => Err(Response::error(
            409,
            format!("contest {n} does not exist or has started already"),
        )),
        Err(e) => Err(Response::error(500, e)),
    }
}

fn scoreboard(practice: &Practice, id: &str) -> Result<Value, Response> {
    let n = parse_id(id)?;
    let c = practice
        .db
        .contest(n)
        .map_err(|e| Response::error(500, e))?
        .ok_or_else(|| Response::error(404, format!("no contest {n}")))?;
    let now = practice.now();
    let attempts = match (c.start_at, contest::end_of(&c)) {
        (Some(start), Some(end)) => practice
            .db
            .attempts(&c.problems, start, end)
            .map_err(|e| Response::error(500, e))?,
        _ => Vec::new(),
    };
    Ok(contest::scoreboard_json(&c, &attempts, now))
}

/// `POST /api/stress`: queues a stress run and waits for it (at most its seconds and some
/// more); the answer is its state, also at `GET /api/stress/{id}`.
fn post_stress(practice: &Practice, body: &Value) -> Result<Value, Response> {
    let problem = body
        .get("problem")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("`problem` is missing"))?
        .to_string();
    if practice.store.problem_dir(&problem).is_none() {
        return Err(Response::error(404, format!("no problem `{problem}`")));
    }
    let solution = source_of(practice, body)?;
    let field = |key: &str| -> Result<super::Source, Response> {
        let spec = body.get(key).ok_or_else(|| {
            bad(format!(
                "`{key}` is missing: a path, or {{\"source\", \"language\"}}"
            ))
        })?;
        source_of(practice, spec)
    };
    let generator = field("generator")?;
    let brute = field("brute")?;
    let seconds = body.get("seconds").and_then(Value::as_f64).unwrap_or(10.0);
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= MAX_STRESS_SECONDS) {
        return Err(bad(format!(
            "`seconds` must be more than 0 and at most {MAX_STRESS_SECONDS}"
        )));
    }
    let args = body
        .get("args")
        .and_then(Value::as_str)
        .unwrap_or("{seed} {size}")
        .to_string();
    if !args.contains("{seed}") || args.len() > 200 {
        return Err(bad("`args` must hold {seed} (and may hold {size})"));
    }
    let id = {
        let mut all = practice.stress.lock().unwrap_or_else(|e| e.into_inner());
        all.push(json!({"state": "queued", "problem": problem, "seconds": seconds}));
        all.len() - 1
    };
    let folder = practice
        .store
        .dir
        .join("submissions")
        .join(format!("stress-{}-{id}", std::process::id()));
    let write = |dir: &Path, s: &super::Source| -> Result<PathBuf, Response> {
        std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(dir.join(&s.file_name), &s.text))
            .map(|_| dir.join(&s.file_name))
            .map_err(|e| Response::error(500, format!("cannot write the stress files: {e}")))
    };
    // Each program in a folder of its own: two files may have the same name.
    let job = judging::StressJob {
        id,
        problem: problem.clone(),
        solution: write(&folder.join("solution"), &solution)?,
        generator: write(&folder.join("generator"), &generator)?,
        brute: write(&folder.join("brute"), &brute)?,
        folder,
        args,
        seconds,
    };
    practice.queue.push(Job::Stress(job));
    // Wait: the page shows the outcome of its request. Judging ahead in the queue and the
    // builds come on top of the budget; past the wait the run goes on and GET tells.
    let until = std::time::Instant::now() + Duration::from_secs_f64(seconds + 120.0);
    loop {
        let entry = {
            let all = practice.stress.lock().unwrap_or_else(|e| e.into_inner());
            all[id].clone()
        };
        let state = entry["state"].as_str().unwrap_or_default();
        if state == "done" || state == "failed" || std::time::Instant::now() > until {
            let mut out = entry;
            out["id"] = json!(id);
            return Ok(out);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn stress_state(practice: &Practice, id: &str) -> Result<Value, Response> {
    let n: usize = id
        .parse()
        .map_err(|_| Response::error(404, format!("no stress run `{id}`")))?;
    let all = practice.stress.lock().unwrap_or_else(|e| e.into_inner());
    let mut entry = all
        .get(n)
        .cloned()
        .ok_or_else(|| Response::error(404, format!("no stress run {n}")))?;
    entry["id"] = json!(n);
    Ok(entry)
}

/// The longest line the console takes in one request.
const CONSOLE_LINE: usize = judge_core::engine::console::CONSOLE_LINE;
/// How long a replay or a comparison may wait for its engine and run.
const TASK_WAIT: Duration = Duration::from_secs(600);

/// `POST /api/problems/{id}/interactor`: `{"source", "language"}` or `{"path"}`, with
/// `protocol` (`kattis` or `testlib`) and optional `helpers` (`[{"name", "text"}]` or absolute
/// paths: `testlib.h`).
fn attach_interactor(practice: &Practice, id: &str, body: &Value) -> Result<Value, Response> {
    if practice.store.problem_dir(id).is_none() {
        return Err(Response::error(404, format!("no problem `{id}`")));
    }
    let protocol = body
        .get("protocol")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("`protocol` is missing: \"kattis\" or \"testlib\""))?;
    let source = source_of(practice, body)?;
    let mut helpers: Vec<(String, Vec<u8>)> = Vec::new();
    for h in body
        .get("helpers")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        match (h, h.get("name"), h.get("text")) {
            (Value::String(path), _, _) => {
                let path = Path::new(path);
                if !path.is_absolute() {
                    return Err(bad(format!("{}: give an absolute path", path.display())));
                }
                let bytes = super::user::read_as(&practice.user, path, super::MAX_SOURCE)
                    .map_err(|e| Response::error(422, e))?;
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                helpers.push((name, bytes));
            }
            (_, Some(Value::String(name)), Some(Value::String(text))) => {
                if text.len() as u64 > super::MAX_SOURCE {
                    return Err(Response::error(413, format!("helper `{name}` is too long")));
                }
                helpers.push((name.clone(), text.as_bytes().to_vec()));
            }
            _ => {
                return Err(bad(
                    "each of `helpers` is an absolute path or {\"name\", \"text\"}",
                ))
            }
        }
    }
    if helpers.len() > 8 {
        return Err(bad("at most 8 helper files"));
    }
    let new = super::store::NewInteractor {
        file_name: &source.file_name,
        text: source.text.as_bytes(),
        protocol,
        helpers: helpers
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect(),
    };
    practice
        .store
        .attach_interactor(id, &new)
        .map_err(|e| Response::error(422, e))?;
    practice
        .hub
        .publish(&json!({"event": "problem_changed", "problem": id}));
    Ok(json!({"interactor": source.file_name, "protocol": protocol}))
}

fn interaction_path(practice: &Practice, id: &str, name: &str) -> Result<PathBuf, Response> {
    let path = practice
        .store
        .interactions_dir(id)
        .filter(|_| super::store::valid_id(name))
        .map(|d| d.join(format!("{name}.interaction")))
        .filter(|p| p.is_file());
    path.ok_or_else(|| Response::error(404, format!("problem `{id}` has no exchange `{name}`")))
}

fn interaction_file(practice: &Practice, id: &str, name: &str) -> Response {
    match interaction_path(practice, id, name).and_then(|p| {
        std::fs::read(&p).map_err(|e| Response::error(500, format!("{}: {e}", p.display())))
    }) {
        Ok(bytes) => Response::bytes(200, "text/plain; charset=utf-8", bytes),
        Err(response) => response,
    }
}

fn replay(practice: &Practice, id: &str, name: &str, body: &Value) -> Result<Value, Response> {
    let file = interaction_path(practice, id, name)?;
    let source = source_of(practice, body)?;
    let id = id.to_string();
    super::console::on_engine(practice, TASK_WAIT, move |practice, engine| {
        super::console::replay(practice, engine, &id, &file, &source)
    })
    .map_err(|e| Response::error(503, e))?
    .map_err(|e| Response::error(422, e))
}

fn console_id(id: &str) -> Result<u64, Response> {
    id.parse::<u64>()
        .map_err(|_| Response::error(404, format!("no console `{id}`")))
}

/// `POST /api/console`: `{"problem", "source", "language"}` or `{"problem", "path"}`.
fn post_console(practice: &Practice, body: &Value) -> Result<Value, Response> {
    let problem = body
        .get("problem")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("`problem` (an id from /api/problems) is missing"))?;
    if practice.store.problem_dir(problem).is_none() {
        return Err(Response::error(404, format!("no problem `{problem}`")));
    }
    let source = source_of(practice, body)?;
    let id = super::console::start(practice, problem, source)
        .map_err(|(status, e)| Response::error(status, e))?;
    Ok(json!({"id": id}))
}

/// `POST /api/console/{id}/send` (`{"line"}`), `…/close` (the program's end of input),
/// `…/stop`, `…/save` (`{"name"}` optional).
fn console_action(
    practice: &Practice,
    id: &str,
    action: &str,
    body: &Value,
) -> Result<Value, Response> {
    use judge_core::engine::console::Input;
    let n = console_id(id)?;
    let fail = |(status, e): (u16, String)| Response::error(status, e);
    match action {
        "send" => {
            let line = body
                .get("line")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("`line` (a string) is missing"))?;
            if line.len() > CONSOLE_LINE {
                return Err(Response::error(
                    413,
                    format!("a line is at most {CONSOLE_LINE} bytes"),
                ));
            }
            if line.contains(['\n', '\r']) {
                return Err(bad("send one line at a time (no line breaks in `line`)"));
            }
            practice
                .consoles
                .send(n, Input::Line(line.to_string()))
                .map_err(fail)?;
            Ok(json!({"ok": true}))
        }
        "close" => {
            practice.consoles.send(n, Input::Close).map_err(fail)?;
            Ok(json!({"ok": true}))
        }
        "stop" => {
            if practice.consoles.stop(n) {
                Ok(json!({"ok": true}))
            } else {
                Err(Response::error(404, format!("no console {n}")))
            }
        }
        "save" => {
            let (problem, text) = practice
                .consoles
                .interaction(n)
                .ok_or_else(|| Response::error(404, format!("no console {n}")))?;
            if text.is_empty() {
                return Err(Response::error(409, "nothing was exchanged yet"));
            }
            let name = body
                .get("name")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty());
            let saved = practice
                .store
                .save_interaction(&problem, name, &text)
                .map_err(bad)?;
            practice
                .hub
                .publish(&json!({"event": "problem_changed", "problem": problem}));
            Ok(json!({"name": saved, "problem": problem}))
        }
        _ => Err(Response::error(
            404,
            format!("no route POST /api/console/{id}/{action}"),
        )),
    }
}

/// `POST /api/compare`: `{"problem", "solutions": [a path, or {"source", "language"}, or
/// {"path"}; 2 to 6]}`; judges each on every test and answers the matrix.
fn post_compare(practice: &Practice, body: &Value) -> Result<Value, Response> {
    let problem = body
        .get("problem")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("`problem` is missing"))?
        .to_string();
    if practice.store.problem_dir(&problem).is_none() {
        return Err(Response::error(404, format!("no problem `{problem}`")));
    }
    // Refused at once: the engines may all be busy (console sessions hold theirs).
    if practice.store.meta(&problem).interactive
        && practice
            .store
            .load(&problem)
            .is_ok_and(|p| p.interactor.is_none())
    {
        return Err(Response::error(
            422,
            super::compare::no_interactor(&problem),
        ));
    }
    let specs = body
        .get("solutions")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("`solutions` must be a list of paths or {\"source\", \"language\"}"))?;
    if specs.len() < 2 || specs.len() > super::compare::MAX_SOLUTIONS {
        return Err(bad(format!(
            "compare 2 to {} solutions",
            super::compare::MAX_SOLUTIONS
        )));
    }
    let mut sources = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let source = source_of(practice, spec)?;
        let name = spec
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| source.path.as_ref().map(|p| p.display().to_string()))
            .unwrap_or_else(|| format!("#{} {}", i + 1, source.file_name));
        sources.push((name, source));
    }
    let matrix = super::console::on_engine(practice, TASK_WAIT, move |practice, engine| {
        super::compare::compare(practice, engine, &problem, &sources)
    })
    .map_err(|e| Response::error(503, e))?
    .map_err(|e| Response::error(422, e))?;
    let mut all = practice.compares.lock().unwrap_or_else(|e| e.into_inner());
    let mut out = matrix;
    out["id"] = json!(all.len());
    if all.len() < 256 {
        all.push(out.clone());
    }
    Ok(out)
}
