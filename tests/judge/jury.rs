//! The jury page of `judge serve` (`/jury`) in a real browser (Debian's Chromium, headless,
//! over the DevTools protocol as the practice page's tests drive it), on a server whose own
//! slots judge (a SQLite file): the queue, the workers, the submissions with their verdicts
//! as they change, and a submission's tests, as a jury member uses them.

use crate::browser::cdp::Browser;
use crate::harness::program;
use crate::serve::{sum_package, upload, Judged, ORGANISER};
use judge_service::db::Engine;
use serde_json::{json, Value};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

fn submit(server: &Judged, file: &str) -> i64 {
    let source = std::fs::read_to_string(program(file)).unwrap();
    let (status, body) = server.post_json(
        "/api/v1/submissions",
        Some(ORGANISER),
        &json!({"problem": "sum", "filename": file, "source": source}),
    );
    assert_eq!(status, 201, "{body}");
    body["id"].as_i64().unwrap()
}

/// The submissions table as the page shows it: (id, state, verdict) a row.
fn rows(browser: &mut Browser) -> Value {
    browser.eval(
        "[...document.querySelectorAll('#submissions tbody tr')].map(r =>
            [Number(r.dataset.id), r.cells[4].textContent, r.cells[5].textContent])",
    )
}

#[test]
fn the_jury_page_shows_the_queue_the_workers_and_live_verdicts_with_each_tests_result() {
    let server = Judged::start(Engine::Sqlite, &["a", "b"]);
    assert_eq!(upload(&server, "sum", ORGANISER, &sum_package()).0, 201);
    let ac = submit(&server, "ac.c");
    let wa = submit(&server, "wa.c");
    let ce = submit(&server, "ce.c");
    for id in [ac, wa, ce] {
        server.wait_done(id);
    }

    let mut browser = Browser::launch();
    // The token in the address's fragment (never sent to the server), then taken out of it.
    browser.goto(&format!("http://{}/jury#token={ORGANISER}", server.addr));
    browser.wait_for(
        "document.querySelectorAll('#submissions tbody tr').length === 3",
        WAIT,
    );
    assert_eq!(browser.eval("location.hash"), json!(""));
    assert_eq!(
        rows(&mut browser),
        json!([[ce, "done", "CE"], [wa, "done", "WA"], [ac, "done", "AC"]])
    );
    assert_eq!(
        browser.eval("document.querySelector('#done').textContent"),
        json!("3")
    );
    // Two slots of the server's own, each with what it finished.
    let workers = browser.wait_for(
        "(() => { const r = [...document.querySelectorAll('#workers tbody tr')];
            return r.length === 2 && r.map(w => [w.cells[1].textContent, Number(w.cells[4].textContent)]); })()",
        WAIT,
    );
    let done: i64 = workers
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w[1].as_i64().unwrap())
        .sum();
    assert_eq!(done, 3, "{workers}");
    for w in workers.as_array().unwrap() {
        assert!(
            matches!(w[0].as_str(), Some("idle" | "judging")),
            "{workers}"
        );
    }

    // A submission's tests, with the checker's message of the wrong one.
    browser.eval(&format!(
        "document.querySelector(\"#submissions tr[data-id='{wa}']\").click()"
    ));
    let tests = browser.wait_for(
        &format!(
            "(() => {{ const p = document.querySelector('#submission');
                return !p.hidden && p.dataset.id === '{wa}' &&
                    [...p.querySelectorAll('.tests tbody tr')].map(r =>
                        [r.cells[1].textContent, r.cells[3].textContent, r.cells[5].textContent]); }})()"
        ),
        WAIT,
    );
    let tests = tests.as_array().unwrap();
    assert!(!tests.is_empty());
    let wrong = tests
        .iter()
        .find(|t| t[0] == "WA")
        .unwrap_or_else(|| panic!("{tests:?}"));
    assert_eq!(wrong[1], "250 ms", "the limit: {tests:?}");
    assert!(!wrong[2].as_str().unwrap().is_empty(), "{tests:?}");
    // A compile error shows what the compiler said.
    browser.eval(&format!(
        "document.querySelector(\"#submissions tr[data-id='{ce}']\").click()"
    ));
    let compiler = browser.wait_for(
        &format!(
            "(() => {{ const p = document.querySelector('#submission');
                const c = p.querySelector('.compile');
                return p.dataset.id === '{ce}' && !c.hidden && c.textContent; }})()"
        ),
        WAIT,
    );
    assert!(compiler.as_str().unwrap().contains("error"), "{compiler}");

    // Live: a new submission appears and reaches its verdict without a reload.
    browser.wait_for(
        "document.querySelector('#live').textContent === 'live'",
        WAIT,
    );
    let late = submit(&server, "tle-loop.c");
    browser.wait_for(
        &format!(
            "(() => {{ const r = document.querySelector(\"#submissions tr[data-id='{late}']\");
                return r && r.cells[5].textContent === 'TLE'; }})()"
        ),
        WAIT,
    );
    assert_eq!(
        browser.eval("document.querySelector('#done').textContent"),
        json!("4")
    );

    // The jury drops test 10 (the one wa.c fails) and judges the problem again from the page:
    // the matrix shows WA → AC, nothing is published until applied.
    let fixed = tempfile::tempdir().unwrap();
    crate::harness::copy_dir(&crate::harness::fixture_problem("sum"), fixed.path());
    for file in ["10.in", "10.ans"] {
        std::fs::remove_file(fixed.path().join("tests").join(file)).unwrap();
    }
    let package = judge_service::store::pack(fixed.path()).unwrap();
    assert_eq!(upload(&server, "sum", ORGANISER, &package).0, 201);
    browser.eval(
        "document.querySelector('#rejudge-problem').value = 'sum';
         document.querySelector('#new-rejudge button').click()",
    );
    let matrix = browser.wait_for(
        "(() => { const p = document.querySelector('#rejudge');
            return !p.hidden && p.dataset.state === 'done' &&
                [...p.querySelectorAll('.matrix tbody tr')].map(r =>
                    [r.cells[0].textContent, r.cells[1].textContent, Number(r.cells[2].textContent)]); })()",
        WAIT,
    );
    let matrix = matrix.as_array().unwrap();
    assert!(matrix.contains(&json!(["WA", "AC", 1])), "{matrix:?}");
    assert!(matrix.contains(&json!(["AC", "AC", 1])), "{matrix:?}");
    let changed = browser.eval(
        "[...document.querySelectorAll('#rejudge .changed tbody tr')].map(r => Number(r.dataset.id))",
    );
    assert_eq!(changed, json!([wa]));
    // Not published yet.
    assert_eq!(server.wait_done(wa)["verdict"], "WA");
    browser.eval("document.querySelector('#apply').click()");
    browser.wait_for(
        &format!(
            "(() => {{ const r = document.querySelector(\"#submissions tr[data-id='{wa}']\");
                return document.querySelector('#rejudge').dataset.state === 'applied'
                    && r && r.cells[5].textContent === 'AC'; }})()"
        ),
        WAIT,
    );
    assert_eq!(server.wait_done(wa)["verdict"], "AC");

    // A wrong token: the page asks for one, saying why, and shows nothing else.
    browser.goto(&format!(
        "http://{}/jury#token=not-a-token-0123456789",
        server.addr
    ));
    let said = browser.wait_for(
        "(() => { const e = document.querySelector('#login-error');
            return !document.querySelector('#login').hidden && !e.hidden && e.textContent; })()",
        WAIT,
    );
    assert!(said.as_str().unwrap().contains("token"), "{said}");
    assert_eq!(
        browser.eval("document.querySelector('#jury').hidden"),
        json!(true)
    );
}
