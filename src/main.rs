fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("__sandbox-worker") {
        // The judge re-executes itself as a sandbox worker (see crates/sandbox/src/worker/).
        std::process::exit(judge_sandbox::worker::main(&args[1..]));
    }
    if args.first().map(String::as_str) == Some("__sandbox-pair") {
        // Two sandboxed programs talking through pipes (tests of concurrent runs).
        std::process::exit(judge_sandbox::pair::main(&args[1..]));
    }
    std::process::exit(judge::cli::main());
}
