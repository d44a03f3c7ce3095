//! `atomic_file` on real files: a write replaces the file whole, keeps what the old file was (a
//! link stays a link, its mode stays), and a write that fails leaves the old file byte for byte
//! and nothing else behind.

mod files;
use files::{mode, names};

use ask_popup_protocol::atomic_file::{self, OWNER_ONLY, READABLE};
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const OLD: &str = "// the user's own\ntheme \"gruvbox\"\n";
const NEW: &str = "// the user's own\ntheme \"gruvbox\"\nweb_sharing \"on\"\n";

#[test]
fn a_write_replaces_the_file_and_leaves_nothing_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.kdl");
    fs::write(&config, OLD).unwrap();
    atomic_file::write(&config, NEW.as_bytes(), READABLE).unwrap();
    assert_eq!(fs::read_to_string(&config).unwrap(), NEW);
    assert_eq!(names(dir.path()), ["config.kdl"]);
}

#[test]
fn a_symlinked_config_stays_a_link_and_its_target_gets_the_new_text() {
    let dir = tempfile::tempdir().unwrap();
    // A dotfiles repo holds the file; the config dir links to it, relatively, through a
    // second link.
    fs::create_dir(dir.path().join("dotfiles")).unwrap();
    let real = dir.path().join("dotfiles/config.kdl");
    fs::write(&real, OLD).unwrap();
    let middle = dir.path().join("dotfiles/current.kdl");
    std::os::unix::fs::symlink("config.kdl", &middle).unwrap();
    fs::create_dir(dir.path().join("zellij")).unwrap();
    let link = dir.path().join("zellij/config.kdl");
    std::os::unix::fs::symlink("../dotfiles/current.kdl", &link).unwrap();

    atomic_file::write(&link, NEW.as_bytes(), READABLE).unwrap();

    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::symlink_metadata(&middle)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        fs::read_link(&link).unwrap(),
        Path::new("../dotfiles/current.kdl")
    );
    assert_eq!(fs::read_to_string(&real).unwrap(), NEW);
    assert_eq!(
        names(&dir.path().join("dotfiles")),
        ["config.kdl", "current.kdl"]
    );
    assert_eq!(names(&dir.path().join("zellij")), ["config.kdl"]);
}

#[test]
fn a_link_to_a_file_not_there_yet_creates_that_file() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("settings.json");
    std::os::unix::fs::symlink(dir.path().join("real.json"), &link).unwrap();
    atomic_file::write(&link, b"{}\n", OWNER_ONLY).unwrap();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        fs::read_to_string(dir.path().join("real.json")).unwrap(),
        "{}\n"
    );
}

#[test]
fn an_existing_file_keeps_its_mode_and_a_new_one_gets_the_mode_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.json");
    fs::write(&settings, "{}").unwrap();
    // Wider and narrower than the new-file mode, and one no umask would give.
    for old in [0o640, 0o600, 0o664, 0o755] {
        fs::set_permissions(&settings, fs::Permissions::from_mode(old)).unwrap();
        atomic_file::write(&settings, b"{\"a\":1}", OWNER_ONLY).unwrap();
        assert_eq!(mode(&settings), old, "{old:o}");
        atomic_file::write(&settings, b"{\"a\":2}", READABLE).unwrap();
        assert_eq!(mode(&settings), old, "{old:o}");
    }
    let fresh = dir.path().join("fresh.json");
    atomic_file::write(&fresh, b"{}", OWNER_ONLY).unwrap();
    assert_eq!(mode(&fresh), 0o600);
}

#[test]
fn a_backup_copy_gets_the_originals_mode_and_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.json");
    fs::write(&settings, "{\"env\":{\"KEY\":\"secret\"}}").unwrap();
    fs::set_permissions(&settings, fs::Permissions::from_mode(0o600)).unwrap();
    // An older backup anyone could read.
    let backup = dir.path().join("settings.json.bak");
    fs::write(&backup, "old").unwrap();
    fs::set_permissions(&backup, fs::Permissions::from_mode(0o644)).unwrap();
    atomic_file::copy(&settings, &backup).unwrap();
    assert_eq!(fs::read(&backup).unwrap(), fs::read(&settings).unwrap());
    assert_eq!(mode(&backup), 0o600);
}

#[test]
fn a_write_that_fails_midway_leaves_the_old_file_byte_for_byte_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.kdl");
    fs::write(&config, OLD).unwrap();
    fs::set_permissions(&config, fs::Permissions::from_mode(0o640)).unwrap();
    // Half the new text, then the disk is full.
    let failed = atomic_file::write_with(&config, READABLE, |out| {
        out.write_all(&NEW.as_bytes()[..NEW.len() / 2])?;
        Err(io::Error::new(io::ErrorKind::StorageFull, "no space left"))
    });
    assert_eq!(failed.unwrap_err().kind(), io::ErrorKind::StorageFull);
    assert_eq!(fs::read(&config).unwrap(), OLD.as_bytes());
    assert_eq!(mode(&config), 0o640);
    assert_eq!(names(dir.path()), ["config.kdl"]);
}

#[test]
fn a_rename_that_fails_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    // What is there is a folder: the new file cannot take its place.
    let taken = dir.path().join("config.kdl");
    fs::create_dir(&taken).unwrap();
    fs::write(taken.join("inside"), OLD).unwrap();
    assert!(atomic_file::write(&taken, NEW.as_bytes(), READABLE).is_err());
    assert_eq!(fs::read_to_string(taken.join("inside")).unwrap(), OLD);
    assert_eq!(names(dir.path()), ["config.kdl"]);
}

#[test]
fn a_folder_made_read_only_leaves_the_old_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("zellij");
    fs::create_dir(&folder).unwrap();
    let config = folder.join("config.kdl");
    fs::write(&config, OLD).unwrap();
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o555)).unwrap();
    // Root writes into a read-only folder all the same: then there is nothing to see here
    // (the test above fails a write for everyone).
    let probe = folder.join("probe");
    if fs::write(&probe, "").is_ok() {
        let _ = fs::remove_file(&probe);
        fs::set_permissions(&folder, fs::Permissions::from_mode(0o755)).unwrap();
        eprintln!("skipped: this user writes into read-only folders");
        return;
    }
    let failed = atomic_file::write(&config, NEW.as_bytes(), READABLE);
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(failed.unwrap_err().kind(), io::ErrorKind::PermissionDenied);
    assert_eq!(fs::read(&config).unwrap(), OLD.as_bytes());
    assert_eq!(names(&folder), ["config.kdl"]);
}
