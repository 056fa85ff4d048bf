use super::*;

#[test]
fn a_package_packs_the_same_whatever_its_times_and_unpacks_whole() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("p/tests")).unwrap();
    std::fs::write(dir.path().join("p/problem.toml"), "name = 'x'\n").unwrap();
    std::fs::write(dir.path().join("p/tests/1.in"), "1 2\n").unwrap();
    let first = pack(&dir.path().join("p")).unwrap();
    std::fs::write(dir.path().join("p/tests/1.in"), "1 2\n").unwrap();
    assert_eq!(hash(&pack(&dir.path().join("p")).unwrap()), hash(&first));
    unpack(&first, &dir.path().join("q")).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("q/tests/1.in")).unwrap(),
        "1 2\n"
    );
}

#[test]
fn an_archive_path_leaving_the_folder_is_refused() {
    let mut header = tar::Header::new_gnu();
    header.set_size(1);
    header.set_mode(0o644);
    header.set_entry_type(tar::EntryType::Regular);
    // set_path refuses `..`: write the name field directly, as a hostile archive would.
    header.as_old_mut().name[..9].copy_from_slice(b"../escape");
    header.set_cksum();
    let mut builder = tar::Builder::new(Vec::new());
    builder.append(&header, &b"x"[..]).unwrap();
    let archive = builder.into_inner().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = unpack(&archive, &dir.path().join("p"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("leaves its folder"), "{e}");
    assert!(!dir.path().join("escape").exists());
}
