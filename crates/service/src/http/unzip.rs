//! A package uploaded as a `.zip`: unpacked into a fresh folder under the same rules as a
//! tar — plain files and folders only, no path leaving the folder — and capped, whatever the
//! archive claims, in the bytes it unpacks to and the entries it holds (a zip bomb stops at
//! the cap, with a 413 naming it).

use super::ApiError;
use axum::http::StatusCode;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// How much one archive may unpack to.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub bytes: u64,
    pub entries: usize,
}

/// Whether `body` is a zip archive (a local file header, or the end record of an empty one).
pub fn is_zip(body: &[u8]) -> bool {
    body.starts_with(b"PK\x03\x04") || body.starts_with(b"PK\x05\x06")
}

fn refused(why: String) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        format!("the package archive is refused: {why}"),
    )
}

/// The entry's path inside the folder: relative, no `..`, no empty or NUL name.
fn inside(name: &str) -> Option<PathBuf> {
    let trimmed = name.trim_end_matches('/');
    if trimmed.is_empty() || name.starts_with('/') || name.contains(['\0', '\\']) {
        return None;
    }
    let mut path = PathBuf::new();
    for part in trimmed.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            // A drive letter (`C:`) would be absolute elsewhere.
            p if p.len() == 2 && p.ends_with(':') => return None,
            p => path.push(p),
        }
    }
    (!path.as_os_str().is_empty()).then_some(path)
}

/// Unpacks `archive` into `dest` (which must not exist).
pub fn unpack(archive: &[u8], dest: &Path, limits: Limits) -> Result<(), ApiError> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(archive))
        .map_err(|e| ApiError::bad_request(format!("the package is not a valid .zip: {e}")))?;
    if zip.len() > limits.entries {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the package holds {} entries; at most {} are accepted",
                zip.len(),
                limits.entries
            ),
        ));
    }
    let io = |path: &Path, e: std::io::Error| {
        ApiError::internal(format!("unpacking into {}: {e}", path.display()))
    };
    std::fs::create_dir(dest).map_err(|e| io(dest, e))?;
    let mut left = limits.bytes;
    for i in 0..zip.len() {
        let mut entry = zip
            .by_index(i)
            .map_err(|e| ApiError::bad_request(format!("the package is not a valid .zip: {e}")))?;
        let name = entry.name().to_string();
        let rel =
            inside(&name).ok_or_else(|| refused(format!("the path {name} leaves its folder")))?;
        // A Unix mode, when there is one, must be a plain file's or a folder's.
        let kind = entry.unix_mode().map(|m| m & 0o170000).unwrap_or(0);
        let dir = entry.is_dir() || kind == 0o040000;
        if entry.is_symlink() || !matches!(kind, 0 | 0o100000 | 0o040000) {
            return Err(refused(format!(
                "the package holds {name}, which is neither a file nor a folder"
            )));
        }
        let path = dest.join(&rel);
        // A file where a folder should be (`a`, then `a/b`) is the archive's fault.
        let clash = |e: std::io::Error| refused(format!("{name} cannot be unpacked: {e}"));
        if dir {
            std::fs::create_dir_all(&path).map_err(clash)?;
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(clash)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => refused(format!("it holds {name} twice")),
                _ => clash(e),
            })?;
        // What the entry claims is not trusted: at most what is left, and one byte to tell.
        let mut data = Vec::new();
        (&mut entry)
            .take(left + 1)
            .read_to_end(&mut data)
            .map_err(|e| ApiError::bad_request(format!("the package's {name} is corrupt: {e}")))?;
        if data.len() as u64 > left {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the package is larger than {} KiB once decompressed",
                    limits.bytes >> 10
                ),
            ));
        }
        left -= data.len() as u64;
        file.write_all(&data).map_err(|e| io(&path, e))?;
        if entry.unix_mode().is_some_and(|m| m & 0o111 != 0) {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| io(&path, e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use zip::write::SimpleFileOptions;

    const ROOMY: Limits = Limits {
        bytes: 1 << 20,
        entries: 100,
    };

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in entries {
            w.start_file(*name, options).unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn unpacked(archive: &[u8], limits: Limits) -> Result<tempfile::TempDir, ApiError> {
        let scratch = tempfile::tempdir().unwrap();
        unpack(archive, &scratch.path().join("p"), limits).map(|()| scratch)
    }

    #[test]
    fn files_and_folders_unpack_with_their_executable_bits() {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let plain = SimpleFileOptions::default().unix_permissions(0o644);
        w.add_directory("data/", plain).unwrap();
        w.start_file("data/1.in", plain).unwrap();
        w.write_all(b"1 2\n").unwrap();
        w.start_file("run", plain.unix_permissions(0o755)).unwrap();
        w.write_all(b"#!/bin/sh\n").unwrap();
        let archive = w.finish().unwrap().into_inner();
        let dir = unpacked(&archive, ROOMY).unwrap();
        let p = dir.path().join("p");
        assert_eq!(std::fs::read(p.join("data/1.in")).unwrap(), b"1 2\n");
        use std::os::unix::fs::PermissionsExt;
        let mode = |f: &str| std::fs::metadata(p.join(f)).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode("run"), mode("data/1.in")), (0o755, 0o644));
    }

    #[test]
    fn paths_leaving_the_folder_links_and_duplicates_are_refused() {
        for name in ["../x", "/etc/x", "a/../../x", "C:/x", "a\\..\\x"] {
            let err = unpacked(&zip_of(&[(name, b"x")]), ROOMY).unwrap_err();
            assert_eq!(err.status, StatusCode::UNPROCESSABLE_ENTITY, "{name}");
            assert_eq!(
                err.detail,
                format!("the package archive is refused: the path {name} leaves its folder")
            );
        }
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        w.add_symlink("link", "/etc/passwd", SimpleFileOptions::default())
            .unwrap();
        let err = unpacked(&w.finish().unwrap().into_inner(), ROOMY).unwrap_err();
        assert_eq!(
            (err.status, err.detail.as_str()),
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                "the package archive is refused: the package holds link, which is neither a file nor a folder"
            )
        );
        let err = unpacked(&zip_of(&[("a", b"1"), ("./a", b"2")]), ROOMY).unwrap_err();
        assert_eq!(
            err.detail,
            "the package archive is refused: it holds ./a twice"
        );
        let err = unpacked(&zip_of(&[("a", b"1"), ("a/b", b"2")]), ROOMY).unwrap_err();
        assert_eq!(
            err.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            err.detail
        );
        assert!(
            err.detail
                .starts_with("the package archive is refused: a/b cannot be unpacked: "),
            "{}",
            err.detail
        );
    }

    #[test]
    fn a_zip_bomb_stops_at_the_caps_on_bytes_and_entries() {
        let zeros = vec![0u8; 64 << 10];
        let bomb = zip_of(&[("a", &zeros), ("b", &zeros)]);
        assert!(bomb.len() < 4 << 10, "{} bytes", bomb.len());
        let small = Limits {
            bytes: 100 << 10,
            entries: 100,
        };
        let err = unpacked(&bomb, small).unwrap_err();
        assert_eq!(
            (err.status, err.detail.as_str()),
            (
                StatusCode::PAYLOAD_TOO_LARGE,
                "the package is larger than 100 KiB once decompressed"
            )
        );
        let many: Vec<(String, &[u8])> = (0..11).map(|i| (format!("f{i}"), &b""[..])).collect();
        let many: Vec<(&str, &[u8])> = many.iter().map(|(n, d)| (n.as_str(), *d)).collect();
        let few = Limits {
            bytes: 1 << 20,
            entries: 10,
        };
        let err = unpacked(&zip_of(&many), few).unwrap_err();
        assert_eq!(
            (err.status, err.detail.as_str()),
            (
                StatusCode::PAYLOAD_TOO_LARGE,
                "the package holds 11 entries; at most 10 are accepted"
            )
        );
        let err = unpacked(b"PK\x03\x04 not really", ROOMY).unwrap_err();
        assert_eq!(err.status, StatusCode::BAD_REQUEST, "{}", err.detail);
    }
}
