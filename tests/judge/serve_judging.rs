//! What `judge serve`'s workers do with a submission beyond its verdict: the language given
//! at submit time, the per-test events of the stream, the environment digest, and a job
//! taken away or a worker stopped mid-judging. A real server, real workers, a throwaway
//! PostgreSQL; every wait has a deadline.

use crate::harness::program;
use crate::serve::{sum_package, upload, Server, ALICE, ORGANISER};
use crate::service::Worker;
use serde_json::{json, Value};

fn database() -> String {
    judge_service::testdb::shared().expect("a throwaway PostgreSQL (apt-get install postgresql)")
}

fn post(server: &Server, body: &Value) -> (u16, Value) {
    server.post_json("/api/v1/submissions", Some(ALICE), body)
}

#[test]
fn the_language_given_at_submit_time_is_the_one_the_worker_builds_with() {
    let url = database();
    let server = Server::start(&url);
    assert_eq!(upload(&server, "sum", ORGANISER, &sum_package()).0, 201);
    let _worker = Worker::start(&url, "lang", "10");
    let c = std::fs::read_to_string(program("ac.c")).unwrap();
    let py = std::fs::read_to_string(program("ac.py")).unwrap();

    // A name that tells no language, and a name that tells the wrong one: the given language
    // wins (a Python source built as C would be a CE), spelled as the table spells it.
    let mut ids = Vec::new();
    for (filename, language, source) in [
        ("solution.txt", "c", &c),
        ("a.c", "PYTHON 3", &py),
        ("a.py", "C", &c),
    ] {
        let (status, body) = post(
            &server,
            &json!({"problem": "sum", "filename": filename, "language": language, "source": source}),
        );
        assert_eq!(status, 201, "{filename}: {body}");
        ids.push(body["id"].as_i64().unwrap());
    }
    for (id, language) in ids.iter().zip(["C", "Python 3", "C"]) {
        let done = server.wait_done(*id);
        assert_eq!(done["language"], language, "{done:#}");
        assert_eq!(done["verdict"], "AC", "{done:#}");
    }
    // Without a language the file name tells it, as before: C source named .py is Python.
    let (status, body) = post(
        &server,
        &json!({"problem": "sum", "filename": "a.py", "source": c}),
    );
    assert_eq!(status, 201, "{body}");
    let done = server.wait_done(body["id"].as_i64().unwrap());
    assert_eq!(done["language"], Value::Null);
    assert_ne!(done["verdict"], "AC", "C judged as Python: {done:#}");

    // A language no entry builds is refused at submit time, storing nothing.
    let before = crate::serve::count(&url, "submissions");
    for language in ["Scala", "Kattis run script"] {
        let (status, body) = post(
            &server,
            &json!({"problem": "sum", "filename": "a.c", "language": language, "source": c}),
        );
        assert_eq!(status, 422, "{body}");
        let detail = body["detail"].as_str().unwrap();
        assert!(
            detail.starts_with(&format!(
                "unknown language `{language}`; the judge knows C++, C"
            )),
            "{detail}"
        );
    }
    assert_eq!(crate::serve::count(&url, "submissions"), before);
}
