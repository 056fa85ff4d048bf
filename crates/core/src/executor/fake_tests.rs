use super::*;

#[test]
fn the_fake_language_builds_through_the_fake() {
    let work = tempfile::tempdir().unwrap();
    let fake = FakeExecutor::new()
        .always("hello", Act::prints("hi\n"))
        .compile_error("broken", "expected `;`");
    let mut engine = fake.engine(work.path());
    let src = source(work.path(), "src/hello.cpp", "hello");
    let (artifact, report) = engine.build(&src).unwrap();
    assert!(report.ok && !report.cached, "{report:?}");
    let artifact = artifact.unwrap();
    let (outcome, stdout, _) = engine
        .execute(&artifact, &[], None, &[], crate::engine::checker_limits())
        .unwrap();
    assert_eq!(outcome.termination, Termination::Exited(0));
    assert_eq!(std::fs::read_to_string(stdout).unwrap(), "hi\n");

    let src = source(work.path(), "src/broken.py", "broken");
    let (artifact, report) = engine.build(&src).unwrap();
    assert!(artifact.is_none() && !report.ok);
    // The compiler's message names the user's file, not the build folder's copy.
    assert!(
        report
            .message
            .contains(&format!("{}: error: expected `;`", src.display())),
        "{}",
        report.message
    );
    let calls = fake.calls();
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(calls[0].compile && !calls[1].compile && calls[2].compile);
}

#[test]
fn limits_are_applied_as_the_sandbox_does() {
    let work = tempfile::tempdir().unwrap();
    let spec = |limits: judge_sandbox::Limits| RunSpec {
        program: PathBuf::from("/x"),
        args: Vec::new(),
        env: Vec::new(),
        workdir: work.path().to_path_buf(),
        scratch_workdir: true,
        stdin: None,
        stdout: work.path().join("out"),
        stderr: work.path().join("err"),
        readable: Vec::new(),
        limits,
    };
    let mut limits = crate::engine::checker_limits();
    limits.cpu = Duration::from_secs(1);
    limits.wall = Duration::from_secs(3);
    limits.output = 4;
    let at = play(&spec(limits.clone()), Act::ok().cpu_ms(1000), true);
    assert!(!at.cpu_limit_exceeded && at.termination == Termination::Exited(0));
    let over = play(&spec(limits.clone()), Act::ok().cpu_ms(1001), true);
    assert!(over.cpu_limit_exceeded && over.termination == Termination::Signaled(9));
    let asleep = play(&spec(limits.clone()), Act::ok().wall_ms(10_000), true);
    assert!(asleep.wall_limit_exceeded && !asleep.cpu_limit_exceeded);
    assert_eq!(asleep.wall_time, Duration::from_secs(3));
    let loud = play(&spec(limits), Act::prints("123456"), true);
    assert!(loud.output_limit_exceeded && loud.stdout_bytes == 4);
    assert_eq!(std::fs::read(work.path().join("out")).unwrap(), b"1234");
}
