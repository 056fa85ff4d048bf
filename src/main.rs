fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("__sandbox-worker") {
        // The judge re-executes itself as a sandbox worker (see src/sandbox/worker.rs).
        std::process::exit(judge::sandbox::worker::main(&args[1..]));
    }
    std::process::exit(judge::cli::main());
}
