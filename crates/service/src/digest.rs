//! A worker's environment digest: what its verdicts depend on besides the submission — the
//! judge's version, the kernel, the processor, and the version of each compiler and
//! interpreter of the language table found here. Each judging records it; an organiser who
//! pins a digest (`judge serve --pin-digest D`, the `settings` row `pin_digest`) has only
//! workers with that digest claim, since time limits compare only on like machines.

use judge_core::lang::Languages;

/// What a worker judges with: the description, one `what: version` a line, and its digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// The first 16 hex digits of the description's SHA-256.
    pub digest: String,
    pub description: String,
}

impl Environment {
    /// The environment of a description.
    pub fn of(description: String) -> Environment {
        let digest = crate::store::hash(description.as_bytes())[..16].to_string();
        Environment {
            digest,
            description,
        }
    }

    /// This machine's, for `languages`.
    pub fn here(languages: &Languages) -> Environment {
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let mut lines = vec![
            format!("judge: {}", env!("CARGO_PKG_VERSION")),
            format!("kernel: {}", read("/proc/sys/kernel/osrelease").trim()),
            format!("arch: {}", std::env::consts::ARCH),
        ];
        if let Some(cpu) = read("/proc/cpuinfo")
            .lines()
            .find_map(|l| l.strip_prefix("model name"))
            .and_then(|l| l.split_once(':'))
        {
            lines.push(format!("cpu: {}", cpu.1.trim()));
        }
        let mut seen: Vec<&str> = Vec::new();
        for l in languages.all().iter().filter(|l| !l.extensions.is_empty()) {
            for command in [&l.compile, &l.run] {
                // The Rust entry's compiler is the sysroot's: the `rustc` found in PATH.
                let Some(program) = command
                    .first()
                    .map(|w| {
                        if w.starts_with("{rust_sysroot}") {
                            "rustc"
                        } else {
                            w
                        }
                    })
                    .filter(|w| !w.starts_with('{'))
                else {
                    continue;
                };
                if seen.contains(&program) {
                    continue;
                }
                seen.push(program);
                let version =
                    judge_core::lang::version_line(program).unwrap_or_else(|| "not found".into());
                lines.push(format!("{program}: {version}"));
            }
        }
        Environment::of(lines.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_names_the_judge_the_kernel_and_each_toolchain_and_changes_with_them() {
        let languages = Languages::load(None).unwrap();
        let env = Environment::here(&languages);
        assert_eq!(env.digest.len(), 16);
        assert!(env.digest.chars().all(|c| c.is_ascii_hexdigit()));
        let text = &env.description;
        assert!(text.starts_with(&format!("judge: {}\nkernel: ", env!("CARGO_PKG_VERSION"))));
        // gcc is on every machine the tests run on; its line is its version's.
        let gcc = text.lines().find(|l| l.starts_with("gcc: ")).expect(text);
        assert!(
            gcc.contains("gcc") && gcc.chars().any(|c| c.is_ascii_digit()),
            "{gcc}"
        );
        assert_eq!(
            Environment::here(&languages),
            env,
            "the same machine, the same digest"
        );
        let other = Environment::of(text.replace(gcc, "gcc: gcc 1.0"));
        assert_ne!(other.digest, env.digest);
    }
}
