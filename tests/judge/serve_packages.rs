//! Packages reaching `judge serve`: uploaded as a `.zip` (under the tar's hostile-input rules),
//! and loaded from a folder of packages (`--problems DIR`) at start and when they change. A
//! real server over a throwaway PostgreSQL; every wait has a deadline.

use crate::serve::{count, sum_package, upload, Server, ORGANISER};
use std::io::Write;
use zip::write::SimpleFileOptions;

fn database() -> String {
    judge_service::testdb::shared().expect("a throwaway PostgreSQL (apt-get install postgresql)")
}

/// The files of a tar (as `store::pack` makes it) as a deflated zip.
fn zip_of_tar(tar: &[u8]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for entry in tar::Archive::new(tar).entries().unwrap() {
        let mut entry = entry.unwrap();
        let name = entry.path().unwrap().display().to_string();
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(entry.header().mode().unwrap());
        zip.start_file(name, options).unwrap();
        std::io::copy(&mut entry, &mut zip).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A zip whose entries are `(name, data)`, plus a link when `link` is given.
fn zip_with(entries: &[(String, &[u8])], link: Option<&str>) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in entries {
        zip.start_file(name.as_str(), SimpleFileOptions::default())
            .unwrap();
        zip.write_all(data).unwrap();
    }
    if let Some(link) = link {
        zip.add_symlink(link, "/etc/passwd", SimpleFileOptions::default())
            .unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn a_zip_upload_is_stored_as_its_tar_is_and_a_hostile_zip_stores_nothing() {
    let url = database();
    let server = Server::start(&url);
    let tar = sum_package();
    let (status, body) = upload(&server, "zipped", ORGANISER, &zip_of_tar(&tar));
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["package"], judge_service::store::hash(&tar), "{body}");

    let (blobs, problems) = (count(&url, "blobs"), count(&url, "problems"));
    let mut files: Vec<(String, &[u8])> = tar::Archive::new(tar.as_slice())
        .entries()
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.path().unwrap().display().to_string(), &b""[..])
        })
        .collect();
    files.truncate(1);
    let refused = |archive: Vec<u8>| -> (u16, String) {
        let (status, body) = upload(&server, "hostile", ORGANISER, &archive);
        (status, body["detail"].as_str().unwrap_or("").to_string())
    };
    for path in ["../escape", "/etc/escape", "a/../../escape"] {
        let mut entries = files.clone();
        entries.push((path.to_string(), b"x"));
        assert_eq!(
            refused(zip_with(&entries, None)),
            (
                422,
                format!("the package archive is refused: the path {path} leaves its folder")
            )
        );
    }
    assert_eq!(
        refused(zip_with(&files, Some("data/link"))),
        (
            422,
            "the package archive is refused: the package holds data/link, which is neither a file nor a folder".to_string()
        )
    );
    let many: Vec<(String, &[u8])> = (0..10_001).map(|i| (format!("f{i}"), &b""[..])).collect();
    assert_eq!(
        refused(zip_with(&many, None)),
        (
            413,
            "the package holds 10001 entries; at most 10000 are accepted".to_string()
        )
    );
    let (status, why) = refused(b"PK\x03\x04 torn".to_vec());
    assert_eq!(status, 400, "{why}");
    assert!(why.starts_with("the package is not a valid .zip"), "{why}");
    assert_eq!(
        (count(&url, "blobs"), count(&url, "problems")),
        (blobs, problems),
        "a refused upload stores nothing"
    );
}

#[test]
fn a_folder_of_packages_is_served_and_reloaded_and_a_broken_one_stops_no_other() {
    let url = database();
    let dir = tempfile::tempdir().unwrap();
    let packages = dir.path();
    crate::harness::copy_dir(
        &crate::harness::fixture_problem("sum"),
        &packages.join("adder"),
    );
    std::fs::create_dir(packages.join("broken")).unwrap();
    std::fs::write(
        packages.join("broken/problem.toml"),
        "time_limit = \"fast\"\n",
    )
    .unwrap();
    std::fs::create_dir(packages.join(".hidden")).unwrap();
    let server = Server::start_with(
        &url,
        &[
            "--problems".as_ref(),
            packages.as_os_str(),
            "--problems-poll".as_ref(),
            "0.2".as_ref(),
        ],
    );
    // Loaded before the server listens: both lines came first.
    let adder = server.wait_line("problem adder: ");
    assert!(adder.starts_with("problem adder: loaded from "), "{adder}");
    let broken = server.wait_line("problem broken: ");
    assert!(
        broken.contains("broken is not served: the package does not load: "),
        "{broken}"
    );
    let problems = |server: &Server| -> Vec<(String, String)> {
        let (status, body) = server.get("/api/v1/problems", Some(ORGANISER));
        assert_eq!(status, 200, "{body}");
        body["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_string(),
                    p["package"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let first = problems(&server);
    let names: Vec<&str> = first.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.contains(&"adder") && !names.contains(&"broken"),
        "{first:?}"
    );
    let package = |all: &[(String, String)], name: &str| {
        all.iter().find(|(n, _)| n == name).map(|(_, p)| p.clone())
    };
    let before = package(&first, "adder").unwrap();
    assert_eq!(before, judge_service::store::hash(&sum_package()));

    // A changed package is stored again; the broken one mended is served; a new one too.
    crate::harness::set_sum_limits(&packages.join("adder"), "time_limit = 2.0");
    crate::harness::copy_dir(
        &crate::harness::fixture_problem("sum"),
        &packages.join("newer"),
    );
    std::fs::remove_dir_all(packages.join("broken")).unwrap();
    crate::harness::copy_dir(
        &crate::harness::fixture_problem("sum"),
        &packages.join("broken"),
    );
    for name in ["adder", "broken", "newer"] {
        let line = server.wait_line(&format!("problem {name}: "));
        assert!(line.contains(": loaded from "), "{line}");
    }
    let after = problems(&server);
    assert_ne!(package(&after, "adder").unwrap(), before, "{after:?}");
    assert_eq!(package(&after, "newer"), Some(before.clone()));
    assert_eq!(package(&after, "broken"), Some(before));
}
