//! Tests imported in bulk: a folder or a zip of `NAME.in` files, each with its answer
//! `NAME.ans` or `NAME.out` (`.ans` wins when both are there) beside it, in any sub-folder.
//! Whatever else the folder or zip holds is skipped and listed (hidden files, `__MACOSX/`, a
//! README); an input without an answer, or an answer without an input, refuses the whole import
//! with the file's name. Nothing is extracted by path: the contents are read into memory under
//! caps (files, bytes per file, bytes in all: a zip bomb stops at the cap) and become tests of
//! the user's through the store (`Store::import_tests`, all or none).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// Files a folder or a zip may hold.
pub const MAX_FILES: usize = 2000;
/// Tests one import may add.
pub const MAX_TESTS: usize = 500;
/// Bytes of one file.
pub const MAX_FILE: u64 = 64 << 20;
/// Bytes of all the files together (uncompressed).
pub const MAX_TOTAL: u64 = 256 << 20;
/// Folders below the imported one that are looked into.
const MAX_DEPTH: usize = 4;

/// A file found: its path inside the folder or the zip (`/`-separated), its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// A test to add: where it came from (its path without the extension), input, answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub from: String,
    pub input: Vec<u8>,
    pub answer: Vec<u8>,
}

/// What the files make: the pairs in natural order of their names, and the files skipped.
pub fn pairs(files: Vec<Found>) -> Result<(Vec<Pair>, Vec<String>), String> {
    let mut inputs = BTreeMap::new();
    let mut answers: BTreeMap<String, (bool, Vec<u8>, String)> = BTreeMap::new();
    let mut skipped = Vec::new();
    for file in files {
        let hidden = file
            .name
            .split('/')
            .any(|part| part.starts_with('.') || part == "__MACOSX");
        let (stem, ext) = match file.name.rsplit_once('.') {
            Some((stem, ext)) if !hidden && !stem.is_empty() && !stem.ends_with('/') => {
                (stem.to_string(), ext.to_ascii_lowercase())
            }
            _ => {
                skipped.push(file.name);
                continue;
            }
        };
        match ext.as_str() {
            "in" => {
                inputs.insert(stem, file.bytes);
            }
            "ans" | "out" => {
                let ans = ext == "ans";
                match answers.remove(&stem) {
                    None => {
                        answers.insert(stem, (ans, file.bytes, file.name));
                    }
                    // `.ans` is the answer; a `.out` beside it is skipped.
                    Some(old) if ans && !old.0 => {
                        skipped.push(old.2);
                        answers.insert(stem, (ans, file.bytes, file.name));
                    }
                    Some(old) => {
                        skipped.push(file.name);
                        answers.insert(stem, old);
                    }
                }
            }
            _ => skipped.push(file.name),
        }
    }
    for (stem, (_, _, name)) in &answers {
        if !inputs.contains_key(stem) {
            return Err(format!(
                "{name} has no input beside it: add {stem}.in, or leave the answer out"
            ));
        }
    }
    let mut out = Vec::new();
    for (stem, input) in inputs {
        let Some((_, answer, _)) = answers.remove(&stem) else {
            return Err(format!(
                "{stem}.in has no answer beside it: add {stem}.ans (or {stem}.out)"
            ));
        };
        out.push(Pair {
            from: stem,
            input,
            answer,
        });
    }
    if out.is_empty() {
        return Err(
            "no tests found: a test is a NAME.in file with NAME.ans (or NAME.out) beside it".into(),
        );
    }
    if out.len() > MAX_TESTS {
        return Err(format!(
            "{} tests: at most {MAX_TESTS} are imported at once",
            out.len()
        ));
    }
    out.sort_by(|a, b| natural_cmp(&a.from, &b.from));
    skipped.sort();
    Ok((out, skipped))
}

/// `2` before `10`: digit runs compare as numbers.
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let key = |s: &str| -> Vec<(String, u128)> {
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut digits = String::new();
        for c in s.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
            } else {
                if !digits.is_empty() {
                    parts.push((
                        std::mem::take(&mut text),
                        digits.parse().unwrap_or(u128::MAX),
                    ));
                    digits.clear();
                }
                text.push(c);
            }
        }
        parts.push((text, digits.parse().unwrap_or(0)));
        parts
    };
    key(a).cmp(&key(b)).then_with(|| a.cmp(b))
}

/// Counts bytes against [`MAX_TOTAL`] and files against [`MAX_FILES`].
#[derive(Default)]
struct Budget {
    files: usize,
    bytes: u64,
}

impl Budget {
    fn take(&mut self, name: &str, reader: impl Read) -> Result<Vec<u8>, String> {
        self.files += 1;
        if self.files > MAX_FILES {
            return Err(format!("more than {MAX_FILES} files"));
        }
        let mut bytes = Vec::new();
        reader
            .take(MAX_FILE + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{name}: cannot read: {e}"))?;
        if bytes.len() as u64 > MAX_FILE {
            return Err(format!("{name}: larger than {} MiB", MAX_FILE >> 20));
        }
        self.bytes += bytes.len() as u64;
        if self.bytes > MAX_TOTAL {
            return Err(format!(
                "the files hold more than {} MiB in all",
                MAX_TOTAL >> 20
            ));
        }
        Ok(bytes)
    }
}

/// The files of a zip archive (stored or deflated entries); folders are skipped.
pub fn unzip(bytes: &[u8]) -> Result<Vec<Found>, String> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("not a zip archive: {e}"))?;
    let mut budget = Budget::default();
    let mut files = Vec::new();
    for i in 0..archive.len() {
        let entry = archive
            .by_index(i)
            .map_err(|e| format!("entry {} of the zip: {e}", i + 1))?;
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().trim_start_matches('/').to_string();
        let bytes = budget.take(&name, entry)?;
        files.push(Found { name, bytes });
    }
    Ok(files)
}

/// The files of folder `dir` and of its sub-folders (a few levels), read by the caller's
/// identity (see `user::run_as`); links are not followed.
pub fn folder(dir: &Path) -> Result<Vec<Found>, String> {
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|e| format!("{}: cannot read: {e}", dir.display()))?;
    if !meta.is_dir() {
        return Err(format!("{}: not a folder", dir.display()));
    }
    let mut budget = Budget::default();
    let mut files = Vec::new();
    walk(dir, "", 0, &mut budget, &mut files)?;
    Ok(files)
}

fn walk(
    dir: &Path,
    prefix: &str,
    depth: usize,
    budget: &mut Budget,
    files: &mut Vec<Found>,
) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("{}: cannot read: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: cannot read: {e}", dir.display()))?;
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", entry.path().display()))?;
        if kind.is_dir() {
            if depth < MAX_DEPTH {
                walk(&entry.path(), &format!("{name}/"), depth + 1, budget, files)?;
            }
        } else if kind.is_file() {
            let file = std::fs::File::open(entry.path())
                .map_err(|e| format!("{}: cannot read: {e}", entry.path().display()))?;
            let bytes = budget.take(&entry.path().display().to_string(), file)?;
            files.push(Found { name, bytes });
        }
    }
    Ok(())
}

/// Standard base64 (padding optional, no line breaks) to bytes.
pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        })
    };
    let text = text.trim_end_matches('=').as_bytes();
    if text.len() % 4 == 1 {
        return Err("not base64: its length is off".into());
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    for chunk in text.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c).ok_or("not base64: a character outside A-Z a-z 0-9 + /")? << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(name: &str, text: &str) -> Found {
        Found {
            name: name.into(),
            bytes: text.as_bytes().to_vec(),
        }
    }

    #[test]
    fn pairs_are_inputs_with_their_answers_in_natural_order() {
        let (pairs, skipped) = pairs(vec![
            found("10.in", "ten"),
            found("10.out", "TEN"),
            found("2.in", "two"),
            found("2.ans", "TWO"),
            found("2.out", "not this"),
            found("sub/a.in", "a"),
            found("sub/a.ans", "A"),
            found("README.md", "x"),
            found(".hidden.in", "x"),
            found("__MACOSX/._2.in", "x"),
        ])
        .unwrap();
        let got: Vec<(&str, &[u8], &[u8])> = pairs
            .iter()
            .map(|p| (p.from.as_str(), &p.input[..], &p.answer[..]))
            .collect();
        assert_eq!(
            got,
            [
                ("2", &b"two"[..], &b"TWO"[..]),
                ("10", b"ten", b"TEN"),
                ("sub/a", b"a", b"A")
            ]
        );
        assert_eq!(
            skipped,
            [".hidden.in", "2.out", "README.md", "__MACOSX/._2.in"]
        );
        // `.out` first, `.ans` after: still the `.ans`.
        let (pairs, skipped) = super::pairs(vec![
            found("1.out", "no"),
            found("1.ans", "yes"),
            found("1.in", "q"),
        ])
        .unwrap();
        assert_eq!(pairs[0].answer, b"yes");
        assert_eq!(skipped, ["1.out"]);
    }

    #[test]
    fn a_lone_input_or_answer_refuses_the_import_with_its_name() {
        let e = pairs(vec![
            found("1.in", "1"),
            found("1.ans", "1"),
            found("2.in", "2"),
        ])
        .unwrap_err();
        assert!(
            e.contains("2.in has no answer") && e.contains("2.ans"),
            "{e}"
        );
        let e = pairs(vec![
            found("1.in", "1"),
            found("1.ans", "1"),
            found("3.out", "3"),
        ])
        .unwrap_err();
        assert!(e.contains("3.out has no input"), "{e}");
        let e = pairs(vec![found("notes.txt", "x")]).unwrap_err();
        assert!(e.contains("no tests found"), "{e}");
    }

    #[test]
    fn a_zip_is_read_under_the_caps_and_a_folder_is_walked() {
        use std::io::Write;
        let mut zipped = Vec::new();
        {
            let mut w = zip::ZipWriter::new(std::io::Cursor::new(&mut zipped));
            let deflated = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            w.add_directory("tests/", deflated).unwrap();
            w.start_file("tests/1.in", deflated).unwrap();
            w.write_all(b"1 2\n").unwrap();
            w.start_file("tests/1.ans", deflated).unwrap();
            w.write_all(b"3\n").unwrap();
            w.finish().unwrap();
        }
        let files = unzip(&zipped).unwrap();
        assert_eq!(
            files,
            [found("tests/1.in", "1 2\n"), found("tests/1.ans", "3\n")]
        );
        assert!(unzip(b"PK not really").unwrap_err().contains("not a zip"));
        // A bomb: one entry that inflates past the cap stops there.
        let mut bomb = Vec::new();
        {
            let mut w = zip::ZipWriter::new(std::io::Cursor::new(&mut bomb));
            let deflated = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .large_file(true);
            w.start_file("big.in", deflated).unwrap();
            let zeros = vec![0u8; 1 << 20];
            for _ in 0..=(MAX_FILE >> 20) {
                w.write_all(&zeros).unwrap();
            }
            w.finish().unwrap();
        }
        assert!(bomb.len() < 1 << 20, "{}", bomb.len());
        assert!(unzip(&bomb).unwrap_err().contains("larger than 64 MiB"));
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("sub")).unwrap();
        std::fs::write(tmp.path().join("sub/x.in"), "x").unwrap();
        std::fs::write(tmp.path().join("x.ans"), "y").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", tmp.path().join("link.in")).unwrap();
        let mut files = folder(tmp.path()).unwrap();
        files.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(files, [found("sub/x.in", "x"), found("x.ans", "y")]);
        assert!(folder(&tmp.path().join("x.ans"))
            .unwrap_err()
            .contains("not a folder"));
    }

    #[test]
    fn base64_decodes_what_browsers_encode() {
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVsbG8").unwrap(), b"hello");
        assert_eq!(base64_decode("AP8=").unwrap(), [0, 255]);
        assert_eq!(base64_decode("").unwrap(), b"");
        assert!(base64_decode("a").is_err());
        assert!(base64_decode("a$==").is_err());
    }
}
