fn main() {
    std::process::exit(judge::cli::main());
}
