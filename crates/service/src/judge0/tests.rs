use super::*;

fn table() -> judge_core::lang::Languages {
    judge_core::lang::Languages::load(None).unwrap()
}

#[test]
fn base64_round_trips_every_length_and_refuses_what_is_not_base64() {
    for n in 0..40 {
        let data: Vec<u8> = (0..n).map(|i| (i * 37 + 5) as u8).collect();
        let text = encode_base64(&data);
        assert_eq!(decode_base64(&text), Some(data), "{text}");
    }
    assert_eq!(encode_base64(b"hello\n"), "aGVsbG8K");
    assert_eq!(decode_base64("aGVs\nbG8K"), Some(b"hello\n".to_vec()));
    assert_eq!(decode_base64("aGVsbG8*"), None);
    assert_eq!(decode_base64("aG=Vs"), None);
}

#[test]
fn verdicts_map_to_judge0_statuses_by_signal_and_expected_output() {
    assert_eq!(status_id("AC", true, ""), 3);
    assert_eq!(status_id("WA", true, "line 1"), 4);
    assert_eq!(
        status_id("WA", false, "line 1"),
        3,
        "no expected output: any is fine"
    );
    assert_eq!(status_id("TLE", false, ""), 5);
    assert_eq!(status_id("CE", false, ""), 6);
    assert_eq!(status_id("RE", false, "killed by signal 11 (SIGSEGV)"), 7);
    assert_eq!(status_id("RE", false, "killed by signal 8 (SIGFPE)"), 9);
    assert_eq!(status_id("RE", false, "killed by signal 6 (SIGABRT)"), 10);
    assert_eq!(status_id("RE", false, "exit code 3"), 11);
    assert_eq!(status_id("RE", false, "killed by signal 9 (SIGKILL)"), 12);
    assert_eq!(status_id("OLE", false, ""), 8);
    assert_eq!(status_id("JE", false, ""), 13);
    assert_eq!(ending("exit code 101"), Ending::Code(101));
    assert_eq!(ending("killed by signal 11 (SIGSEGV)"), Ending::Signal(11));
    assert_eq!(ending("wrong answer"), Ending::Unknown);
    assert_eq!(status(7)["description"], "Runtime Error (SIGSEGV)");
}

#[test]
fn a_request_is_checked_field_by_field_as_judge0_answers() {
    let available = languages(&table());
    let errors = parse(&json!({"source_code": "x"}), false, &available).unwrap_err();
    assert_eq!(
        Value::Object(*errors),
        json!({"language_id": ["can't be blank"]})
    );
    let errors = parse(
        &json!({"language_id": 9999, "cpu_time_limit": 99, "memory_limit": 1.5, "foo": 1}),
        false,
        &available,
    )
    .unwrap_err();
    assert_eq!(
        Value::Object(*errors),
        json!({
            "source_code": ["can't be blank"],
            "language_id": ["language with id 9999 doesn't exist"],
            "cpu_time_limit": ["must be less than or equal to 15"],
            "memory_limit": ["must be an integer"],
            "foo": ["is not a submission field"],
        })
    );
    let errors = parse(
        &json!({"language_id": 50, "source_code": "???", "compiler_options": "-O3"}),
        true,
        &available,
    )
    .unwrap_err();
    assert_eq!(errors["source_code"], json!(["is not valid base64"]));
    assert_eq!(
        errors["compiler_options"],
        json!(["compiler options are not supported here"])
    );
    let errors = parse(
        &json!({"language_id": 71, "source_code": "x", "cpu_time_limit": 0,
                "cpu_extra_time": -1, "stack_limit": 10}),
        false,
        &available,
    )
    .unwrap_err();
    assert_eq!(errors["cpu_time_limit"], json!(["must be greater than 0"]));
    assert_eq!(
        errors["cpu_extra_time"],
        json!(["must be greater than or equal to 0"])
    );
    assert_eq!(
        errors["stack_limit"],
        json!(["must be greater than or equal to 1024"])
    );
    let zero_extra = json!({"language_id": 71, "source_code": "x", "cpu_extra_time": 0});
    assert!(parse(&zero_extra, false, &available).is_ok());
    let r = parse(
        &json!({"language_id": 71, "source_code": "cHJpbnQoMSk=", "stdin": "MQ==", "cpu_time_limit": 1}),
        true,
        &available,
    )
    .unwrap();
    assert_eq!(r.language.ours, "Python 3");
    assert_eq!(r.source_code, b"print(1)");
    assert_eq!(r.stdin.as_deref(), Some(&b"1"[..]));
    assert_eq!(r.expected_output, None);
    assert_eq!(r.settings["cpu_time_limit"], json!(1));
    assert_eq!(r.settings["memory_limit"], json!(128000));
}

#[test]
fn the_synthetic_package_loads_with_the_requests_limits() {
    let available = languages(&table());
    let r = parse(
        &json!({"language_id": 54, "source_code": "int main(){}", "stdin": "1 2\n",
                "expected_output": "3\n", "cpu_time_limit": 1.5, "wall_time_limit": 4,
                "memory_limit": 65536, "stack_limit": 128000}),
        false,
        &available,
    )
    .unwrap();
    let archive = package(&r).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("p");
    crate::store::unpack(&archive, &folder).unwrap();
    let problem = judge_core::package::Problem::load(&folder).unwrap();
    assert_eq!(problem.limits.time, std::time::Duration::from_millis(1500));
    assert_eq!(problem.limits.wall, std::time::Duration::from_secs(4));
    assert_eq!(problem.limits.memory, 64 << 20);
    assert_eq!(
        problem.limits.stack,
        64 << 20,
        "the stack is capped at the memory"
    );
    assert_eq!(problem.tests.len(), 1);
    assert_eq!(
        std::fs::read_to_string(folder.join("tests/1.ans")).unwrap(),
        "3\n"
    );
}

#[test]
fn fields_are_the_defaults_all_or_the_ones_named() {
    assert_eq!(fields(None).unwrap(), DEFAULT_FIELDS.to_vec());
    assert_eq!(fields(Some("*")).unwrap().len(), FIELDS.len());
    assert_eq!(
        fields(Some("stdout,status_id")).unwrap(),
        ["stdout", "status_id"]
    );
    let e = fields(Some("stdout,nope")).unwrap_err();
    assert!(e.starts_with("invalid fields: [nope]"), "{e}");
}

#[test]
fn config_info_reports_every_default_with_its_maximum() {
    let c = config_info();
    assert_eq!(c["cpu_time_limit"], json!(2));
    assert_eq!(c["max_cpu_time_limit"], json!(15));
    assert_eq!(c["cpu_extra_time"], json!(0.5));
    assert_eq!(c["memory_limit"], json!(128000));
    assert_eq!(c["max_memory_limit"], json!(256000));
    assert_eq!(c["max_file_size"], json!(1024));
    assert_eq!(c["enable_wait_result"], json!(true));
    let token = uuid().unwrap();
    assert_eq!(token.len(), 36);
    assert_eq!(&token[14..15], "4");
}

#[test]
fn callback_urls_are_http_with_a_host() {
    assert_eq!(
        callback_target("http://127.0.0.1:9/cb?x=1").unwrap(),
        ("127.0.0.1:9".to_string(), "/cb?x=1".to_string())
    );
    assert_eq!(
        callback_target("http://example.org").unwrap(),
        ("example.org:80".to_string(), "/".to_string())
    );
    assert!(callback_target("https://x/").is_err());
    assert!(callback_target("http:///x").is_err());
}
