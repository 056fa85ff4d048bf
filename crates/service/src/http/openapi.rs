//! The OpenAPI 3 document of the API, kept beside the handlers; a test holds it to the
//! router's route list (`super::routes`), both ways.

use axum::http::header;
use axum::response::IntoResponse;
use serde_json::{json, Value};

/// `GET /api/v1/openapi.json` (no token needed: it holds no data).
pub async fn document() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        spec().to_string(),
    )
}

fn problem_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
    })
}

fn errors(codes: &[(&str, &str)]) -> serde_json::Map<String, Value> {
    let mut map = serde_json::Map::new();
    map.insert(
        "401".into(),
        problem_response("no token, or one the server does not accept"),
    );
    for (code, why) in codes {
        map.insert(code.to_string(), problem_response(why));
    }
    map
}

fn ok(code: &str, description: &str, schema: Value, rest: serde_json::Map<String, Value>) -> Value {
    ok_as("application/json", code, description, schema, rest)
}

fn ok_as(
    media: &str,
    code: &str,
    description: &str,
    schema: Value,
    mut rest: serde_json::Map<String, Value>,
) -> Value {
    rest.insert(
        code.into(),
        json!({"description": description, "content": {media: {"schema": schema}}}),
    );
    Value::Object(rest)
}

fn schema(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// The document.
pub fn spec() -> Value {
    let mut spec = base();
    let paths = spec["paths"].as_object_mut().expect("paths is an object");
    paths.extend(clics_paths());
    paths.extend(rejudge_paths());
    let schemas = spec["components"]["schemas"]
        .as_object_mut()
        .expect("schemas is an object");
    schemas.extend(clics_schemas());
    schemas.extend(rejudge_schemas());
    spec
}

fn rejudge_param() -> Value {
    json!({"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}, "description": "the rejudge set's id"})
}

/// The rejudge sets (organisers): a filter judged again into shadow results, the matrix,
/// apply and cancel; the results whose inputs changed.
fn rejudge_paths() -> serde_json::Map<String, Value> {
    let set = |summary: &str, op: &str, description: &str, codes: &[(&str, &str)]| {
        json!({"post": {
            "summary": summary, "operationId": op, "description": description,
            "parameters": [rejudge_param()],
            "responses": ok("200", "the set", schema("Rejudge"), errors(codes))
        }})
    };
    let mut paths = serde_json::Map::new();
    paths.insert("/api/v1/rejudges".into(), json!({
        "get": {
            "summary": "The rejudge sets, newest first (organisers)",
            "operationId": "listRejudges",
            "responses": ok("200", "the sets", json!({
                "type": "object", "required": ["rejudges"],
                "properties": {"rejudges": {"type": "array", "items": {
                    "type": "object", "required": ["id", "state", "submissions", "waiting"],
                    "properties": {
                        "id": {"type": "integer"},
                        "state": {"type": "string", "enum": ["judging", "done", "applied", "cancelled"]},
                        "submissions": {"type": "integer"}, "waiting": {"type": "integer"}
                    }
                }}}
            }), errors(&[("403", "a submitter token")]))
        },
        "post": {
            "summary": "Judge published submissions again into shadow results (organisers)",
            "description": "Every judged submission matching all the fields given (Judge0 runs never) is judged `repeat` times on its problem's current package, through the queue, after new submissions; nothing published changes until the set is applied.",
            "operationId": "createRejudge",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {
                "type": "object", "additionalProperties": false,
                "properties": {
                    "problem": {"type": "string"},
                    "submissions": {"type": "array", "items": {"type": "integer"}},
                    "verdicts": {"type": "array", "items": {"type": "string", "enum": ["AC", "WA", "PE", "TLE", "MLE", "OLE", "RE", "CE", "JE"]}},
                    "since": {"type": "string", "format": "date-time", "description": "submitted at or after, in UTC (`…Z`)"},
                    "until": {"type": "string", "format": "date-time", "description": "submitted before, in UTC (`…Z`)"},
                    "stale": {"type": "boolean", "description": "only those whose inputs changed since they were judged"},
                    "repeat": {"type": "integer", "minimum": 1, "maximum": super::super::rejudge::MAX_RUNS, "description": "judge each this many times (the spread shows the noise)"}
                }
            }}}},
            "responses": ok("201", "the set, judging", schema("Rejudge"), errors(&[
                ("400", "malformed JSON or an unknown field"),
                ("403", "a submitter token"),
                ("404", "no such problem"),
                ("422", "a bad verdict, time or repeat, or no submission matches"),
            ]))
        }
    }));
    paths.insert("/api/v1/rejudges/stale".into(), json!({
        "get": {
            "summary": "Published results whose inputs changed since they were judged (organisers)",
            "description": "A result is stale when a test it was judged on has another input or answer in its problem's current package (or is gone, or a test was added), when the checker or validators changed, or when the language entry that built it (its commands, or its toolchain's version line where the server can ask) is not the current table's.",
            "operationId": "staleResults",
            "parameters": [{"name": "problem", "in": "query", "schema": {"type": "string"}}],
            "responses": ok("200", "the stale results", json!({
                "type": "object", "required": ["submissions"],
                "properties": {"submissions": {"type": "array", "items": {
                    "type": "object", "required": ["id", "problem", "verdict", "reasons"],
                    "properties": {
                        "id": {"type": "integer"}, "problem": {"type": "string"},
                        "verdict": {"type": ["string", "null"]},
                        "reasons": {"type": "array", "items": {"type": "string"}}
                    }
                }}}
            }), errors(&[("400", "an unknown parameter"), ("403", "a submitter token"), ("404", "no such problem")]))
        }
    }));
    paths.insert("/api/v1/rejudges/{id}".into(), json!({
        "get": {
            "summary": "A rejudge set: its state, old → new verdict matrix and changed submissions (organisers)",
            "operationId": "getRejudge",
            "parameters": [rejudge_param()],
            "responses": ok("200", "the set", schema("Rejudge"), errors(&[
                ("400", "not an id"), ("403", "a submitter token"), ("404", "no such set"),
            ]))
        }
    }));
    paths.insert("/api/v1/rejudges/{id}/apply".into(), set(
        "Publish a judged set's results (organisers)",
        "applyRejudge",
        "In one transaction each submission gets its run 1's verdict, score, time, memory, tests and inputs; what they replaced is kept.",
        &[("400", "not an id"), ("403", "a submitter token"), ("404", "no such set"), ("409", "still judging, or applied or cancelled already")],
    ));
    paths.insert(
        "/api/v1/rejudges/{id}/cancel".into(),
        set(
            "Drop a set's pending judgings and shadow results (organisers)",
            "cancelRejudge",
            "Published results stay as they were.",
            &[
                ("400", "not an id"),
                ("403", "a submitter token"),
                ("404", "no such set"),
                ("409", "applied or cancelled already"),
            ],
        ),
    );
    paths
}

fn rejudge_schemas() -> serde_json::Map<String, Value> {
    let verdict = json!({"type": ["string", "null"]});
    let mut schemas = serde_json::Map::new();
    schemas.insert("Rejudge".into(), json!({
        "type": "object",
        "required": ["id", "state", "filter", "repeat", "submissions", "judgings", "judged", "matrix", "changed"],
        "properties": {
            "id": {"type": "integer"},
            "state": {"type": "string", "enum": ["judging", "done", "applied", "cancelled"]},
            "filter": {"type": "object"},
            "repeat": {"type": "integer"},
            "created_at": {"type": ["string", "null"]},
            "ended_at": {"type": ["string", "null"]},
            "submissions": {"type": "integer"},
            "judgings": {"type": "integer", "description": "shadow judgings in all (submissions × repeat; none once cancelled)"},
            "judged": {"type": "integer"},
            "packages": {"type": "object", "description": "each problem's package the set judges on", "additionalProperties": {"type": "string"}},
            "matrix": {"type": "array", "items": {
                "type": "object", "required": ["from", "to", "count"],
                "properties": {"from": {"type": "string"}, "to": {"type": "string"}, "count": {"type": "integer"}}
            }},
            "changed": {"type": "array", "items": {
                "type": "object", "required": ["id", "old", "new"],
                "properties": {
                    "id": {"type": "integer"}, "problem": {"type": "string"}, "shadow": {"type": "integer"},
                    "old": {"type": "object", "properties": {"verdict": verdict, "score": {"type": ["number", "null"]}, "time_ms": {"type": ["integer", "null"]}}},
                    "new": {"type": "object", "properties": {"verdict": verdict, "score": {"type": ["number", "null"]}, "time_ms": {"type": ["integer", "null"]}, "memory_kib": {"type": ["integer", "null"]}}}
                }
            }},
            "spread": {"type": "array", "description": "with repeat > 1: each submission's verdicts seen and fastest and slowest time", "items": {
                "type": "object", "required": ["id", "runs_done", "verdicts"],
                "properties": {
                    "id": {"type": "integer"}, "runs_done": {"type": "integer"},
                    "verdicts": {"type": "array", "items": {"type": "string"}},
                    "min_time_ms": {"type": ["integer", "null"]}, "max_time_ms": {"type": ["integer", "null"]}
                }
            }},
            "unstable": {"type": "integer", "description": "with repeat > 1: submissions given more than one verdict"}
        }
    }));
    schemas
}

fn contest_param() -> Value {
    json!({"name": "id", "in": "path", "required": true, "schema": {"type": "string", "enum": [super::clics::CONTEST]}, "description": "the one contest this server serves"})
}

fn string_param(name: &str, description: &str) -> Value {
    json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}, "description": description})
}

/// The ICPC Contest API (CLICS) endpoints: objects in the specification's shapes.
fn clics_paths() -> serde_json::Map<String, Value> {
    let list = |summary: &str, op: &str, item: &str| {
        json!({"get": {
            "summary": summary, "operationId": op, "parameters": [contest_param()],
            "responses": ok("200", "every one the caller may see", json!({"type": "array", "items": schema(item)}), errors(&[("404", "no such contest")]))
        }})
    };
    let one = |summary: &str, op: &str, item: &str, param: Value| {
        json!({"get": {
            "summary": summary, "operationId": op, "parameters": [contest_param(), param],
            "responses": ok("200", "the object", schema(item), errors(&[("404", "no such contest, or no such object the caller may see")]))
        }})
    };
    let mut paths = serde_json::Map::new();
    paths.insert("/api/v1/contests".into(), json!({"get": {
        "summary": "The contests (one: `default`), as the ICPC Contest API gives them",
        "operationId": "listContests",
        "responses": ok("200", "the contest", json!({"type": "array", "items": schema("ClicsContest")}), errors(&[]))
    }}));
    paths.insert("/api/v1/contests/{id}".into(), json!({"get": {
        "summary": "The contest",
        "operationId": "getContest",
        "parameters": [contest_param()],
        "responses": ok("200", "the contest", schema("ClicsContest"), errors(&[("404", "no such contest")]))
    }}));
    paths.insert(
        "/api/v1/contests/{id}/judgement-types".into(),
        list(
            "The judgement types this judge gives",
            "listJudgementTypes",
            "ClicsJudgementType",
        ),
    );
    paths.insert(
        "/api/v1/contests/{id}/judgement-types/{jt}".into(),
        one(
            "One judgement type",
            "getJudgementType",
            "ClicsJudgementType",
            string_param("jt", "`AC`, `WA`, `RTE`, …"),
        ),
    );
    paths.insert(
        "/api/v1/contests/{id}/judgements".into(),
        list(
            "A judgement per judging attempt (a submitter's own only)",
            "listJudgements",
            "ClicsJudgement",
        ),
    );
    paths.insert(
        "/api/v1/contests/{id}/judgements/{jid}".into(),
        one(
            "One judgement",
            "getJudgement",
            "ClicsJudgement",
            string_param("jid", "`SUBMISSION-ATTEMPT`"),
        ),
    );
    paths.insert(
        "/api/v1/contests/{id}/runs".into(),
        list(
            "A run per test of each final judging (a submitter's own only)",
            "listRuns",
            "ClicsRun",
        ),
    );
    paths.insert(
        "/api/v1/contests/{id}/runs/{rid}".into(),
        one(
            "One run",
            "getRun",
            "ClicsRun",
            string_param("rid", "`SUBMISSION-ATTEMPT-ORDINAL`"),
        ),
    );
    paths
}

fn clics_schemas() -> serde_json::Map<String, Value> {
    let time = json!({"type": "string", "description": "TIME: UTC with milliseconds", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}\\+00:00$"});
    let reltime = json!({"type": "string", "description": "RELTIME since the contest's start", "pattern": "^-?[0-9]+:[0-5][0-9]:[0-5][0-9]\\.[0-9]{3}$"});
    let or_null = |v: &Value| {
        let mut v = v.clone();
        v["type"] = json!(["string", "null"]);
        v
    };
    let ids = json!({"type": ["string", "null"], "enum": judge_model::Verdict::ALL.iter().map(|v| Some(v.judgement_type().id)).chain([None]).collect::<Vec<_>>()});
    let mut map = serde_json::Map::new();
    map.insert("ClicsContest".into(), json!({
        "type": "object", "required": ["id", "name", "start_time", "duration"],
        "properties": {
            "id": {"type": "string"}, "name": {"type": "string"}, "formal_name": {"type": "string"},
            "start_time": time, "duration": reltime,
            "scoreboard_type": {"type": "string", "enum": ["pass-fail"]}
        }
    }));
    map.insert("ClicsJudgementType".into(), json!({
        "type": "object", "required": ["id", "name", "penalty", "solved"],
        "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "penalty": {"type": "boolean"}, "solved": {"type": "boolean"}}
    }));
    map.insert("ClicsJudgement".into(), json!({
        "type": "object",
        "required": ["id", "submission_id", "judgement_type_id", "start_time", "start_contest_time", "end_time", "end_contest_time"],
        "properties": {
            "id": {"type": "string"}, "submission_id": {"type": "string"},
            "judgement_type_id": ids, "current": {"type": "boolean"},
            "start_time": time, "start_contest_time": reltime,
            "end_time": or_null(&time), "end_contest_time": or_null(&reltime),
            "max_run_time": {"type": ["number", "null"], "description": "seconds"}
        }
    }));
    map.insert("ClicsRun".into(), json!({
        "type": "object",
        "required": ["id", "judgement_id", "ordinal", "judgement_type_id", "time", "contest_time", "run_time"],
        "properties": {
            "id": {"type": "string"}, "judgement_id": {"type": "string"},
            "ordinal": {"type": "integer", "minimum": 1},
            "judgement_type_id": {"type": "string"},
            "time": time, "contest_time": reltime,
            "run_time": {"type": "number", "minimum": 0, "description": "seconds"}
        }
    }));
    map
}

fn base() -> Value {
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "judge serve",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The judging service's API. Every call but this document needs `Authorization: Bearer TOKEN`: an organiser token may do everything, a submitter token may submit and read its own submissions. Errors are JSON problems (RFC 9457)."
        },
        "security": [{"bearer": []}],
        "paths": {
            "/api/v1/problems": {
                "get": {
                    "summary": "The problems",
                    "operationId": "listProblems",
                    "responses": ok("200", "every problem", json!({
                        "type": "object", "required": ["problems"],
                        "properties": {"problems": {"type": "array", "items": schema("ProblemSummary")}}
                    }), errors(&[]))
                },
                "post": {
                    "summary": "Upload a problem package (organisers)",
                    "operationId": "uploadProblem",
                    "parameters": [{"name": "name", "in": "query", "required": true, "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$"}}],
                    "requestBody": {"required": true, "content": {
                        "application/x-tar": {"schema": {"type": "string", "format": "binary"}},
                        "application/gzip": {"schema": {"type": "string", "format": "binary"}},
                        "application/zip": {"schema": {"type": "string", "format": "binary"}}
                    }},
                    "responses": ok("201", "stored as the problem's current package", json!({
                        "type": "object", "required": ["name", "package"],
                        "properties": {"name": {"type": "string"}, "package": {"type": "string"}}
                    }), errors(&[
                        ("400", "no name, a bad name, an empty body or a broken .tar.gz or .zip"),
                        ("403", "a submitter token"),
                        ("413", "the archive is too large, or too large once decompressed (256 MiB), or a .zip of more than 10000 entries"),
                        ("422", "a path leaving the folder, a link, an entry twice, or a package that does not load"),
                    ]))
                }
            },
            "/api/v1/submissions": {
                "get": {
                    "summary": "Submissions, newest first (a submitter's own only)",
                    "operationId": "listSubmissions",
                    "parameters": [
                        {"name": "problem", "in": "query", "schema": {"type": "string"}},
                        {"name": "state", "in": "query", "schema": {"type": "string", "enum": ["queued", "judging", "done"]}}
                    ],
                    "responses": ok("200", "the submissions", json!({
                        "type": "object", "required": ["submissions"],
                        "properties": {"submissions": {"type": "array", "items": schema("SubmissionSummary")}}
                    }), errors(&[("400", "an unknown state or parameter")]))
                },
                "post": {
                    "summary": "Submit a source",
                    "operationId": "submit",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {
                        "type": "object", "required": ["problem", "filename", "source"], "additionalProperties": false,
                        "properties": {
                            "problem": {"type": "string"},
                            "language": {"type": "string", "description": "guessed from filename when left out"},
                            "filename": {"type": "string"},
                            "source": {"type": "string", "maxLength": 1048576}
                        }
                    }}}},
                    "responses": ok("201", "queued", json!({
                        "type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}
                    }), errors(&[
                        ("400", "malformed JSON, a missing field or a bad file name"),
                        ("404", "no such problem"),
                        ("413", "a source over 1 MiB"),
                        ("422", "an unknown language, or a file name that tells none"),
                    ]))
                }
            },
            "/api/v1/submissions/{id}": {
                "get": {
                    "summary": "One submission with its tests and every judging attempt",
                    "operationId": "getSubmission",
                    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
                    "responses": ok("200", "the submission", schema("Submission"), errors(&[
                        ("400", "not an id"),
                        ("403", "another submitter's"),
                        ("404", "no such submission"),
                    ]))
                }
            },
            "/api/v1/events": {
                "get": {
                    "summary": "Server-Sent Events of submissions being judged (organisers)",
                    "description": "`judging` {id, attempt, worker} when a worker claims a submission; then, as the worker judges it, the events of `judge run --format jsonl` under their own names (`compile_started`, `compile_finished`, `test_started`, `test_finished` {test, result}, `solution_finished`, …), each with `submission` (its id), `attempt`, `problem` and `solution` (the problem's and the file's names as submitted); `done` {id, problem, verdict, time_ms, memory_kib} when its final verdict commits. An attempt that loses its job tells nothing more.",
                    "operationId": "events",
                    "responses": ok_as("text/event-stream", "200", "the stream", json!({"type": "string"}), errors(&[
                        ("403", "a submitter token"),
                        ("503", "too many streams open, or no database"),
                    ]))
                }
            },
            "/api/v1/workers": {
                "get": {
                    "summary": "Every worker slot as it last told, the most recently heard first (organisers)",
                    "description": "`state` is `idle`, `judging` or `stopped` as the slot said it, or `silent` when it was not heard for longer than its lease (killed, frozen or cut off: its job goes to another worker). `silent_ms`: since it was last heard. `jobs_done` counts the judgings it finished, `judge_errors` those of them that ended JE.",
                    "operationId": "workers",
                    "responses": ok("200", "the workers", json!({
                        "type": "object", "required": ["workers"],
                        "properties": {"workers": {"type": "array", "items": schema("Worker")}}
                    }), errors(&[("403", "a submitter token")]))
                }
            },
            "/api/v1/queue": {
                "get": {
                    "summary": "How many submissions are queued, being judged and done (organisers)",
                    "operationId": "queue",
                    "responses": ok("200", "the counts", json!({
                        "type": "object", "required": ["queued", "judging", "done", "oldest_queued_at"],
                        "properties": {
                            "queued": {"type": "integer"}, "judging": {"type": "integer"},
                            "done": {"type": "integer"},
                            "oldest_queued_at": {"type": ["string", "null"], "format": "date-time"}
                        }
                    }), errors(&[("403", "a submitter token")]))
                }
            },
            "/api/v1/openapi.json": {
                "get": {
                    "summary": "This document",
                    "operationId": "openapi",
                    "security": [],
                    "responses": {"200": {"description": "the OpenAPI document", "content": {"application/json": {"schema": {"type": "object"}}}}}
                }
            }
        },
        "components": components(),
    })
}

fn components() -> Value {
    let nullable = |t: &str| json!({"type": [t, "null"]});
    let hashed = |what: &str| json!({"type": ["string", "null"], "description": format!("SHA-256 of the test's {what} as judged")});
    let test = json!({
        "type": "object", "required": ["name", "verdict", "time_ms", "memory_kib", "message", "limit_ms", "near_limit", "beside_ms"],
        "properties": {
            "name": {"type": "string"}, "verdict": {"type": "string"},
            "time_ms": {"type": "integer"}, "memory_kib": {"type": "integer"},
            "message": {"type": "string"},
            "input_hash": hashed("input"),
            "answer_hash": hashed("answer"),
            "limit_ms": nullable("integer"),
            "near_limit": {"type": "boolean", "description": "the time is within 10 % of the limit, either side"},
            "beside_ms": nullable("integer")
        }
    });
    let inputs = json!({"type": ["object", "null"], "description": "what the published result was judged on, by hash", "properties": {
        "source": {"type": "string"}, "package": nullable("string"), "checker": {"type": "string"},
        "validator": nullable("string"), "language": nullable("string"),
        "language_hash": nullable("string"), "language_version": nullable("string"),
        "digest": nullable("string")
    }});
    let mut all = json!({
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        "schemas": {
            "Problem": {
                "type": "object", "required": ["type", "title", "status", "detail"],
                "properties": {
                    "type": {"type": "string"}, "title": {"type": "string"},
                    "status": {"type": "integer"}, "detail": {"type": "string"}
                }
            },
            "ProblemSummary": {
                "type": "object", "required": ["name", "package", "updated_at"],
                "properties": {
                    "name": {"type": "string"}, "package": {"type": "string"},
                    "updated_at": {"type": "string", "format": "date-time"}
                }
            },
            "SubmissionSummary": {
                "type": "object", "required": ["id", "problem", "state"],
                "properties": {
                    "id": {"type": "integer"}, "problem": {"type": "string"},
                    "language": nullable("string"),
                    "state": {"type": "string", "enum": ["queued", "judging", "done"]},
                    "verdict": nullable("string"), "score": nullable("number"),
                    "time_ms": nullable("integer"), "memory_kib": nullable("integer"),
                    "submitter": nullable("string"),
                    "submitted_at": {"type": "string", "format": "date-time"}
                }
            },
            "Submission": {
                "type": "object",
                "required": ["id", "problem", "language", "state", "verdict", "score", "time_ms", "memory_kib", "tests", "judgings"],
                "properties": {
                    "id": {"type": "integer"}, "problem": {"type": "string"},
                    "language": nullable("string"),
                    "state": {"type": "string", "enum": ["queued", "judging", "done"]},
                    "verdict": nullable("string"), "score": nullable("number"),
                    "time_ms": nullable("integer"), "memory_kib": nullable("integer"),
                    "error": nullable("string"),
                    "compile_output": nullable("string"),
                    "tests": {"type": "array", "items": test},
                    "inputs": inputs,
                    "judgings": {"type": "array", "items": {
                        "type": "object", "required": ["attempt", "worker", "started_at", "finished_at", "outcome"],
                        "properties": {
                            "attempt": {"type": "integer"}, "worker": {"type": "string"},
                            "started_at": {"type": "string", "format": "date-time"},
                            "finished_at": nullable("string"),
                            "outcome": {"type": ["string", "null"], "enum": ["done", "lost", "failed", null]},
                            "reason": nullable("string"),
                            "digest": {"type": ["string", "null"], "description": "the worker's environment digest (`judge serve --pin-digest`)"},
                            "environment": {"type": ["string", "null"], "description": "what the digest covers, one `what: version` a line"}
                        }
                    }}
                }
            }
        }
    });
    all["schemas"]["Worker"] = json!({
        "type": "object",
        "required": ["name", "digest", "state", "lease_ms", "started_at", "last_seen", "silent_ms", "jobs_done", "judge_errors"],
        "properties": {
            "name": {"type": "string"}, "digest": nullable("string"),
            "state": {"type": "string", "enum": ["idle", "judging", "stopped", "silent"]},
            "lease_ms": {"type": "integer"},
            "started_at": {"type": "string", "format": "date-time"},
            "last_seen": {"type": "string", "format": "date-time"},
            "silent_ms": {"type": "integer"},
            "jobs_done": {"type": "integer"}, "judge_errors": {"type": "integer"}
        }
    });
    let submission = &mut all["schemas"]["Submission"]["properties"];
    submission["report"] = json!({"type": ["object", "null"], "description": "the judging as `judge run --json` gives it (schema 1), once judged"});
    submission["rejudge"] =
        json!({"type": "integer", "description": "a rejudge's shadow result only: its set"});
    submission["shadow_of"] = json!({"type": "integer", "description": "a rejudge's shadow result only: the submission it judges again"});
    all
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    #[test]
    fn every_route_is_in_the_document_and_every_documented_operation_is_routed() {
        let routed: BTreeSet<(String, String)> = super::super::routes()
            .into_iter()
            .map(|(path, method, _)| (path.to_string(), method.as_str().to_lowercase()))
            .collect();
        let spec = super::spec();
        let mut documented = BTreeSet::new();
        for (path, item) in spec["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                documented.insert((path.clone(), method.clone()));
            }
        }
        assert_eq!(routed, documented);
        assert_eq!(routed.len(), 23);
    }
}
