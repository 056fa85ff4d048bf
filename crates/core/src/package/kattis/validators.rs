//! A Kattis package's jury programs: the output validator (the default one with its flags, or
//! a custom one: `output_validators/<name>/` legacy, `output_validator/` 2025-09), which is the
//! interactor of an interactive problem, the input validators (`input_validators/`,
//! `input_validator/`; exit 42 = valid), and the grader (`graders/`).

use crate::checker::kattis::Flags;
use crate::checker::Builtin;
use crate::package::{program_from, CheckerSpec, PackageError, Program, Protocol, TestCase};
use std::path::{Path, PathBuf};

/// The default output validator's flags from its arguments.
pub fn default_flags(args: &[String]) -> Result<Flags, String> {
    let mut flags = Flags::default();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        let mut value = || -> Result<f64, String> {
            i += 1;
            args.get(i)
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("`{flag}` needs a number after it"))
        };
        match flag {
            "case_sensitive" => flags.case_sensitive = true,
            "space_change_sensitive" => flags.space_change_sensitive = true,
            "float_absolute_tolerance" => flags.float_absolute_tolerance = Some(value()?),
            "float_relative_tolerance" => flags.float_relative_tolerance = Some(value()?),
            "float_tolerance" => {
                let e = value()?;
                flags.float_absolute_tolerance = Some(e);
                flags.float_relative_tolerance = Some(e);
            }
            other => {
                return Err(format!(
                    "`{other}` is not a flag of the default output validator"
                ))
            }
        }
        i += 1;
    }
    Ok(flags)
}

/// The flags the default output validator takes, for hints.
const FLAGS: &str = "flags are case_sensitive, space_change_sensitive, float_absolute_tolerance E, float_relative_tolerance E, float_tolerance E";

/// How `problem.yaml` asks for the output validator.
pub(super) struct Asked<'a> {
    pub modern: bool,
    /// Legacy `validation: custom …`.
    pub custom: bool,
    pub interactive: bool,
    /// `validator_flags`.
    pub flags: &'a [String],
}

/// The checker and the interactor: a custom output validator is the interactor of an
/// interactive problem (nothing checks an output then), else the checker.
pub(super) fn output(
    dir: &Path,
    asked: &Asked,
    warnings: &mut Vec<PackageError>,
) -> Result<(CheckerSpec, Option<Program>), PackageError> {
    let yaml_path = dir.join("problem.yaml");
    let checker = match custom_folder(dir, asked, warnings)? {
        None => {
            let flags = default_flags(asked.flags).map_err(|e| {
                PackageError::new(&yaml_path, format!("validator_flags: {e}")).hint(FLAGS)
            })?;
            CheckerSpec::Builtin(Builtin::Kattis(flags))
        }
        Some(folder) => CheckerSpec::Custom(one_program(&folder, "output validator")?),
    };
    Ok(match (asked.interactive, checker) {
        (false, checker) => (checker, None),
        (true, CheckerSpec::Custom(program)) => (
            CheckerSpec::Builtin(Builtin::Kattis(Default::default())),
            Some(program),
        ),
        (true, CheckerSpec::Builtin(_)) => {
            let folder = if asked.modern {
                "output_validator/"
            } else {
                "output_validators/<name>/"
            };
            return Err(PackageError::new(
                &yaml_path,
                "an interactive problem without its interactor (the output validator)",
            )
            .hint(format!("add the interactor's source under {folder}: it runs as `validator input answer feedback_dir [args]`, talks to the submission on its stdin and stdout, and exits 42 (accepted) or 43 (wrong answer)")));
        }
    })
}

/// The folder of the custom output validator (`None`: the default one).
fn custom_folder(
    dir: &Path,
    asked: &Asked,
    warnings: &mut Vec<PackageError>,
) -> Result<Option<PathBuf>, PackageError> {
    let single = dir.join("output_validator");
    let plural = dir.join("output_validators");
    if asked.modern {
        return Ok(if single.exists() {
            Some(single)
        } else if plural.is_dir() {
            warnings.push(PackageError::new(
                &plural,
                "`output_validators/` is the legacy folder name (2025-09: `output_validator/`); used",
            ));
            Some(plural)
        } else {
            None
        });
    }
    match (asked.custom, plural.is_dir()) {
        (true, true) => Ok(Some(plural)),
        // DOMjudge imports a legacy package with the 2025-09 folder name (its own example
        // packages keep their validator there).
        (true, false) if single.exists() => {
            warnings.push(PackageError::new(
                &single,
                "a legacy package keeps its output validator in `output_validators/` (2025-09: `output_validator/`); used, as DOMjudge does",
            ).hint("rename the folder to output_validators/, or declare `problem_format_version: 2025-09`"));
            Ok(Some(single))
        }
        (true, false) => Err(PackageError::new(
            dir.join("problem.yaml"),
            "`validation: custom` but the package has no output_validators/ folder",
        )
        .hint("add the validator under output_validators/<name>/, or set validation: default")),
        (false, true) => {
            warnings.push(PackageError::new(
                &plural,
                "output_validators/ is present but problem.yaml says `validation: default`; the default validator is used",
            ));
            Ok(None)
        }
        (false, false) => Ok(None),
    }
}

/// The output validator: legacy `output_validators/` holds one program (a file or a folder);
/// 2025-09 `output_validator/` is the program.
fn one_program(folder: &Path, what: &str) -> Result<Program, PackageError> {
    if folder.is_file() {
        return program_from(folder, Protocol::Kattis, what);
    }
    let entries: Vec<PathBuf> = crate::package::visible_entries(folder, "cannot read")?;
    let dirs: Vec<&PathBuf> = entries.iter().filter(|p| p.is_dir()).collect();
    let files = entries.len() - dirs.len();
    match (dirs.as_slice(), files) {
        // output_validators/<name>/ holding the program.
        ([one], 0) => program_from(one, Protocol::Kattis, what),
        ([], _) => program_from(folder, Protocol::Kattis, what),
        _ => Err(PackageError::new(
            folder,
            format!("several programs in the {what} folder; the judge runs one"),
        )
        .hint(format!(
            "keep one {what} (a file, or one folder with its source and headers)"
        ))),
    }
}

/// The package's grader (`graders/`, one program: a file or a folder), when a group of a scored
/// problem says `grading: custom`; without one that is an error (the specification's judge
/// error, found before judging).
pub(super) fn grader(
    dir: &Path,
    scoring: Option<&crate::score::Scoring>,
    warnings: &mut Vec<PackageError>,
) -> Result<Option<Program>, PackageError> {
    let folder = dir.join("graders");
    let custom = scoring.is_some_and(crate::score::Scoring::custom_graded);
    match (custom, folder.is_dir()) {
        (true, true) => Ok(Some(one_program(&folder, "grader")?)),
        (true, false) => Err(PackageError::new(
            &folder,
            "a test group says `grading: custom` but the package has no graders/ folder",
        )
        .hint("add the grader under graders/ (it reads `VERDICT SCORE` lines and prints one), or set grading: default")),
        (false, true) => {
            warnings.push(PackageError::new(
                &folder,
                "graders/ is present but no scored test group says `grading: custom`; the grader is not run",
            ));
            Ok(None)
        }
        (false, false) => Ok(None),
    }
}

/// The input validators: each source or folder of `input_validators/` (other files are
/// warned about), and `input_validator/` as one program.
pub(super) fn input(
    dir: &Path,
    warnings: &mut Vec<PackageError>,
) -> Result<Vec<Program>, PackageError> {
    let mut validators = Vec::new();
    let folder = dir.join("input_validators");
    if folder.is_dir() {
        for entry in crate::package::visible_entries(&folder, "cannot read")? {
            let is_source = entry.is_dir()
                || entry.extension().is_some_and(|e| {
                    crate::package::SOURCE_EXTENSIONS.contains(&e.to_string_lossy().as_ref())
                });
            if is_source {
                validators.push(program_from(&entry, Protocol::Kattis, "input validator")?);
            } else {
                warnings.push(PackageError::new(
                    &entry,
                    "not a source file the judge builds (.ctd checktestdata scripts and others are not run); skipped",
                ));
            }
        }
    }
    let folder = dir.join("input_validator");
    if folder.is_dir() {
        validators.push(program_from(&folder, Protocol::Kattis, "input validator")?);
    }
    let other = dir.join("input_format_validators");
    if other.exists() {
        warnings.push(PackageError::new(
            &other,
            "checktestdata / viva scripts are not run by the judge; ignored",
        ));
    }
    Ok(validators)
}

/// `validator_flags` go to every output validator, before the group's; the default
/// validator's must be flags it knows.
pub(super) fn checker_args(
    tests: &mut [TestCase],
    flags: &[String],
    default: bool,
) -> Result<(), PackageError> {
    for test in tests {
        let mut all = flags.to_vec();
        all.append(&mut test.checker_args);
        test.checker_args = all;
        if default {
            if let Err(e) = default_flags(&test.checker_args) {
                return Err(PackageError::new(&test.input, format!("output validator arguments of this test: {e}"))
                    .hint("fix output_validator_args / output_validator_flags in the group's configuration"));
            }
        }
    }
    Ok(())
}
