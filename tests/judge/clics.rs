//! The ICPC Contest API (CLICS) endpoints of `judge serve`, read as a scoreboard would: a real
//! server and worker over a throwaway PostgreSQL judge AC, WA, TLE and CE submissions, then
//! every object is checked field by field against the specification's rules — its types, the
//! formats of TIME and RELTIME, and the ids that reference each other — with 401 and 404.

use crate::chaos::Worker;
use crate::harness::program;
use crate::serve::{sum_package, upload, Judged, Server, ALICE, ORGANISER};
use judge_service::db::Engine;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const BASE: &str = "/api/v1/contests/default";

fn database() -> String {
    judge_service::testdb::shared().expect("a throwaway PostgreSQL (apt-get install postgresql)")
}

/// The spec's TIME as this server writes it: UTC, milliseconds, an explicit offset.
fn is_time(v: &Value) -> bool {
    let Some(s) = v.as_str() else { return false };
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    b.len() == 29
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'.'
        && digits(20..23)
        && &s[23..] == "+00:00"
}

/// The spec's RELTIME `h:mm:ss.uuu` (hours unbounded, minutes and seconds below 60) as
/// milliseconds; `None` when it is not one.
fn reltime_ms(v: &Value) -> Option<i64> {
    let s = v.as_str()?;
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (hms, millis) = s.split_once('.')?;
    let parts: Vec<&str> = hms.split(':').collect();
    let [h, m, sec] = parts[..] else { return None };
    let number = |p: &str, len: Option<usize>| {
        (!p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()) && len.is_none_or(|l| p.len() == l))
            .then(|| p.parse::<i64>().ok())
            .flatten()
    };
    // Hours without a leading zero (`0`, `12`, `100`, never `05`).
    (h.len() == 1 || !h.starts_with('0')).then_some(())?;
    let (h, m, sec, ms) = (
        number(h, None)?,
        number(m, Some(2))?,
        number(sec, Some(2))?,
        number(millis, Some(3))?,
    );
    (m < 60 && sec < 60).then_some(())?;
    let total = ((h * 60 + m) * 60 + sec) * 1000 + ms;
    Some(if negative { -total } else { total })
}

/// The spec's identifier: letters, digits, `_`, `.` and `-`, at most 36, neither starting
/// with `.` or `-` nor ending with `.`.
fn is_identifier(v: &Value) -> bool {
    let Some(s) = v.as_str() else { return false };
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    !s.is_empty()
        && s.len() <= 36
        && s.chars().all(ok)
        && !s.starts_with(['.', '-'])
        && !s.ends_with('.')
}

/// The judgement type ids the specification lists (its table of known types).
const KNOWN_TYPES: [&str; 33] = [
    "AC", "RE", "WA", "TLE", "RTE", "CE", "APE", "OLE", "PE", "EO", "IO", "NO", "WTL", "ILE",
    "TCO", "TWA", "TPE", "TEO", "TIO", "TNO", "MLE", "SV", "IF", "RCO", "RWA", "RPE", "REO", "RIO",
    "RNO", "CTL", "JE", "SE", "CS",
];

/// Seconds in whole milliseconds, as the spec's run times are.
fn is_millis(v: &Value) -> bool {
    v.as_f64()
        .is_some_and(|t| t >= 0.0 && ((t * 1000.0).round() - t * 1000.0).abs() < 1e-6)
}

/// Checks an object has exactly `keys` (the ones this server promises).
fn keys(object: &Value, expected: &[&str]) {
    let mut found: Vec<&str> = object
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {object}"))
        .keys()
        .map(String::as_str)
        .collect();
    found.sort();
    let mut expected = expected.to_vec();
    expected.sort();
    assert_eq!(found, expected, "{object:#}");
}

fn submit(server: &Server, token: &str, file: &str) -> i64 {
    let source = std::fs::read_to_string(program(file)).unwrap();
    let (status, body) = server.post_json(
        "/api/v1/submissions",
        Some(token),
        &json!({"problem": "sum", "filename": file, "source": source}),
    );
    assert_eq!(status, 201, "{body}");
    body["id"].as_i64().unwrap()
}

#[test]
fn the_format_checks_refuse_malformed_values() {
    for bad in [
        "05:00:00.000",
        "1:60:00.000",
        "1:00:00.1",
        "1:00:00",
        "x:00:00.000",
        "",
    ] {
        assert_eq!(reltime_ms(&json!(bad)), None, "{bad}");
    }
    assert_eq!(reltime_ms(&json!("-0:01:01.000")), Some(-61_000));
    assert_eq!(reltime_ms(&json!("100:00:00.001")), Some(360_000_001));
    // `Z` the spec allows, but this server promises `+00:00` and milliseconds.
    for bad in [
        "2026-11-27T03:53:58.412Z",
        "2026-11-27T03:53:58+00:00",
        "2026-11-27 03:53:58.412+00:00",
    ] {
        assert!(!is_time(&json!(bad)), "{bad}");
    }
    assert!(is_time(&json!("2026-11-27T03:53:58.412+00:00")));
    for bad in ["-1", ".a", "a.", "a b", "", &"a".repeat(37)] {
        assert!(!is_identifier(&json!(bad)), "{bad}");
    }
    assert!(is_identifier(&json!("12-1-3")));
    assert!(!is_millis(&json!(0.0005)) && is_millis(&json!(0.021)) && !is_millis(&json!(-1.0)));
}

#[test_case::test_case(Engine::Postgres; "postgres")]
#[test_case::test_case(Engine::Sqlite; "sqlite")]
fn judgements_and_runs_read_as_the_contest_api_gives_them(engine: Engine) {
    let server = Judged::start(engine, &["clics"]);
    assert_eq!(upload(&server, "sum", ORGANISER, &sum_package()).0, 201);

    // Alice's AC, WA and CE; the organiser's TLE (Alice must not see it).
    let mut expected = BTreeMap::new();
    for (token, file, verdict, type_id) in [
        (ALICE, "ac.py", "AC", "AC"),
        (ALICE, "wa.py", "WA", "WA"),
        (ALICE, "ce.c", "CE", "CE"),
        (ORGANISER, "tle-loop.c", "TLE", "TLE"),
    ] {
        let id = submit(&server, token, file);
        expected.insert(id.to_string(), (token, verdict, type_id));
    }
    let mut tests_of = BTreeMap::new();
    for (id, (_, verdict, _)) in &expected {
        let done = server.wait_done(id.parse().unwrap());
        assert_eq!(done["verdict"], *verdict, "{done:#}");
        tests_of.insert(id.clone(), done["tests"].as_array().unwrap().clone());
    }

    // The contest: one, `default`, started in the past.
    let (status, contests) = server.get("/api/v1/contests", Some(ORGANISER));
    assert_eq!(status, 200, "{contests}");
    let contests = contests.as_array().unwrap();
    assert_eq!(contests.len(), 1, "{contests:?}");
    let (status, contest) = server.get(BASE, Some(ALICE));
    assert_eq!(status, 200, "{contest}");
    keys(
        &contest,
        &[
            "id",
            "name",
            "formal_name",
            "start_time",
            "duration",
            "scoreboard_type",
        ],
    );
    assert_eq!(contest["id"], "default");
    assert!(is_time(&contest["start_time"]), "{contest}");
    assert!(reltime_ms(&contest["duration"]).unwrap() >= 0, "{contest}");
    assert_eq!(contest["start_time"], contests[0]["start_time"]);

    // The judgement types: the spec's ids, names and flags; only AC solves.
    let (status, types) = server.get(&format!("{BASE}/judgement-types"), Some(ORGANISER));
    assert_eq!(status, 200, "{types}");
    let types: BTreeMap<String, Value> = types
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            keys(t, &["id", "name", "penalty", "solved"]);
            assert!(KNOWN_TYPES.contains(&t["id"].as_str().unwrap()), "{t}");
            assert!(t["name"].is_string() && t["penalty"].is_boolean() && t["solved"].is_boolean());
            (t["id"].as_str().unwrap().to_string(), t.clone())
        })
        .collect();
    let ids: Vec<&str> = types.keys().map(String::as_str).collect();
    assert_eq!(
        ids,
        ["AC", "CE", "JE", "MLE", "OLE", "PE", "RTE", "TLE", "WA"]
    );
    for (id, name, penalty, solved) in [
        ("AC", "Accepted", false, true),
        ("WA", "Wrong Answer", true, false),
        ("TLE", "Time Limit Exceeded", true, false),
        ("RTE", "Run-Time Error", true, false),
        ("CE", "Compiler Error", false, false),
        ("JE", "Judging Error", false, false),
    ] {
        assert_eq!(
            types[id],
            json!({"id": id, "name": name, "penalty": penalty, "solved": solved})
        );
    }
    let (status, one) = server.get(&format!("{BASE}/judgement-types/RTE"), Some(ALICE));
    assert_eq!((status, &one), (200, &types["RTE"]));

    // The judgements: one per judging, each of a submission we made, in the spec's shapes.
    let (status, all) = server.get(&format!("{BASE}/judgements"), Some(ORGANISER));
    assert_eq!(status, 200, "{all}");
    let start = reltime_ms(&contest["duration"]).unwrap();
    let mut judgement_of = BTreeMap::new();
    for j in all.as_array().unwrap() {
        let sub = j["submission_id"].as_str().unwrap().to_string();
        let Some((_, _, type_id)) = expected.get(&sub) else {
            continue; // another test's, in the shared database
        };
        keys(
            j,
            &[
                "id",
                "submission_id",
                "judgement_type_id",
                "current",
                "start_time",
                "start_contest_time",
                "end_time",
                "end_contest_time",
                "max_run_time",
            ],
        );
        assert_eq!(j["id"], format!("{sub}-1"), "one attempt each: {j}");
        assert!(
            is_identifier(&j["id"]) && is_identifier(&j["submission_id"]),
            "{j}"
        );
        assert!(
            is_millis(&j["max_run_time"]) || j["max_run_time"].is_null(),
            "{j}"
        );
        assert_eq!(j["judgement_type_id"], *type_id, "{j}");
        assert!(types.contains_key(*type_id));
        assert_eq!(j["current"], true, "{j}");
        assert!(is_time(&j["start_time"]) && is_time(&j["end_time"]), "{j}");
        assert!(j["start_time"].as_str() <= j["end_time"].as_str(), "{j}");
        let (s, e) = (
            reltime_ms(&j["start_contest_time"]).unwrap(),
            reltime_ms(&j["end_contest_time"]).unwrap(),
        );
        assert!(0 <= s && s <= e && e <= start + 1000, "{j}");
        judgement_of.insert(sub, j.clone());
    }
    assert_eq!(judgement_of.len(), expected.len(), "{all:#}");

    // The runs: one per stored test result, referencing their judgement; the judgement's
    // max_run_time is the largest of its runs.
    let (status, runs) = server.get(&format!("{BASE}/runs"), Some(ORGANISER));
    assert_eq!(status, 200, "{runs}");
    let mut runs_of: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for r in runs.as_array().unwrap() {
        let jid = r["judgement_id"].as_str().unwrap();
        let Some((sub, _)) = jid.split_once('-') else {
            panic!("{r}")
        };
        if !expected.contains_key(sub) {
            continue;
        }
        keys(
            r,
            &[
                "id",
                "judgement_id",
                "ordinal",
                "judgement_type_id",
                "time",
                "contest_time",
                "run_time",
            ],
        );
        assert_eq!(judgement_of[sub]["id"], jid, "{r}");
        assert_eq!(r["id"], format!("{jid}-{}", r["ordinal"]), "{r}");
        assert!(is_time(&r["time"]), "{r}");
        assert!(
            is_identifier(&r["id"]) && is_identifier(&r["judgement_id"]),
            "{r}"
        );
        assert!(is_millis(&r["run_time"]), "{r}");
        assert!(reltime_ms(&r["contest_time"]).unwrap() >= 0, "{r}");
        assert!(r["run_time"].as_f64().unwrap() >= 0.0, "{r}");
        assert!(types.contains_key(r["judgement_type_id"].as_str().unwrap()));
        runs_of.entry(sub.to_string()).or_default().push(r.clone());
    }
    for (sub, (_, _, type_id)) in &expected {
        let tests = &tests_of[sub];
        let runs = runs_of.get(sub).cloned().unwrap_or_default();
        assert_eq!(runs.len(), tests.len(), "{sub}: {runs:?} / {tests:?}");
        for (i, (run, test)) in runs.iter().zip(tests).enumerate() {
            assert_eq!(run["ordinal"], i + 1);
            let verdict = test["verdict"].as_str().unwrap();
            let mapped = if verdict == "RE" { "RTE" } else { verdict };
            assert_eq!(run["judgement_type_id"], mapped, "{run} / {test}");
            assert_eq!(
                run["run_time"].as_f64().unwrap(),
                test["time_ms"].as_f64().unwrap() / 1000.0
            );
        }
        let max = runs
            .iter()
            .map(|r| r["run_time"].as_f64().unwrap())
            .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))));
        assert_eq!(judgement_of[sub]["max_run_time"].as_f64(), max, "{sub}");
        if *type_id == "CE" {
            assert!(runs.is_empty(), "a CE runs no test");
        } else {
            // The judgement's type is the worst of its runs here: AC all AC, else present.
            assert!(
                runs.iter().any(|r| r["judgement_type_id"] == *type_id),
                "{sub}: {runs:?}"
            );
        }
        // Each object by its id is the one in the list.
        let jid = judgement_of[sub]["id"].as_str().unwrap();
        let (status, one) = server.get(&format!("{BASE}/judgements/{jid}"), Some(ORGANISER));
        assert_eq!((status, &one), (200, &judgement_of[sub]));
        if let Some(run) = runs.first() {
            let rid = run["id"].as_str().unwrap();
            let (status, one) = server.get(&format!("{BASE}/runs/{rid}"), Some(ORGANISER));
            assert_eq!((status, &one), (200, run));
        }
    }
    assert!(!runs_of[&expected.iter().find(|e| e.1 .1 == "TLE").unwrap().0.clone()].is_empty());

    // Alice sees her judgements and runs only: not the organiser's TLE.
    let tle = expected
        .iter()
        .find(|e| e.1 .0 == ORGANISER)
        .unwrap()
        .0
        .clone();
    let (status, hers) = server.get(&format!("{BASE}/judgements"), Some(ALICE));
    assert_eq!(status, 200);
    let hers: Vec<&str> = hers
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["submission_id"].as_str().unwrap())
        .collect();
    for (sub, (token, _, _)) in &expected {
        assert_eq!(
            hers.contains(&sub.as_str()),
            *token == ALICE,
            "{sub}: {hers:?}"
        );
    }
    let (status, runs) = server.get(&format!("{BASE}/runs"), Some(ALICE));
    assert_eq!(status, 200);
    assert!(
        runs.as_array().unwrap().iter().all(|r| !r["judgement_id"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{tle}-"))),
        "{runs}"
    );
    let tle_jid = format!("{tle}-1");
    let (status, body) = server.get(&format!("{BASE}/judgements/{tle_jid}"), Some(ALICE));
    assert_eq!(
        status, 404,
        "another's judgement is not hers to see: {body}"
    );
    let tle_run = format!("{tle}-1-1");
    assert_eq!(
        server.get(&format!("{BASE}/runs/{tle_run}"), Some(ALICE)).0,
        404
    );
    assert_eq!(
        server
            .get(&format!("{BASE}/runs/{tle_run}"), Some(ORGANISER))
            .0,
        200
    );

    // 401 without a token or with a wrong one; 404 for what does not exist.
    for path in [
        "/api/v1/contests".to_string(),
        BASE.to_string(),
        format!("{BASE}/judgement-types"),
        format!("{BASE}/judgements"),
        format!("{BASE}/runs/{tle_run}"),
    ] {
        let (status, body) = server.get(&path, None);
        assert_eq!(status, 401, "{path}: {body}");
        assert_eq!(
            server.get(&path, Some("not-a-token-at-all-000")).0,
            401,
            "{path}"
        );
    }
    for path in [
        "/api/v1/contests/wf2026".to_string(),
        "/api/v1/contests/wf2026/judgements".to_string(),
        format!("{BASE}/judgement-types/XX"),
        format!("{BASE}/judgements/{tle}-2"),
        format!("{BASE}/judgements/nonsense"),
        format!("{BASE}/runs/{tle}-1-999"),
        format!("{BASE}/runs/{tle}-1"),
    ] {
        let (status, body) = server.get(&path, Some(ORGANISER));
        assert_eq!(status, 404, "{path}: {body}");
        assert_eq!(body["status"], 404, "{body}");
    }
}

#[test]
fn a_judgement_under_way_has_no_type_and_no_end_until_its_verdict_commits() {
    let url = database();
    let server = Server::start(&url);
    assert_eq!(upload(&server, "sum", ORGANISER, &sum_package()).0, 201);
    let _worker = Worker::start(&url, "clics-live", "10");
    let id = submit(&server, ALICE, "ac-sleepy-sum.c");
    let jid = format!("{id}-1");
    let path = format!("{BASE}/judgements/{jid}");
    // Before a worker claims it there is no judgement yet; while it judges (each test sleeps
    // 0.5 s first), one without a type or an end; at the end, both.
    let deadline = std::time::Instant::now() + crate::serve::DEADLINE;
    let mut seen_under_way = false;
    let last = loop {
        let (status, j) = server.get(&path, Some(ALICE));
        match status {
            404 => assert!(!seen_under_way, "a judgement went away: {j}"),
            200 if j["end_time"].is_null() => {
                assert_eq!(j["judgement_type_id"], Value::Null, "{j}");
                assert_eq!(j["end_contest_time"], Value::Null, "{j}");
                assert_eq!(j["max_run_time"], Value::Null, "{j}");
                assert!(is_time(&j["start_time"]), "{j}");
                seen_under_way = true;
            }
            200 => break j,
            _ => panic!("{status}: {j}"),
        }
        assert!(std::time::Instant::now() < deadline, "{jid} not done");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(seen_under_way, "never saw {jid} under way");
    assert_eq!(last["judgement_type_id"], "AC", "{last}");
    assert!(is_time(&last["end_time"]), "{last}");
    assert!(reltime_ms(&last["end_contest_time"]).is_some(), "{last}");
}
