//! Shared helpers for the tests of files on disk: what a folder holds, and a file's mode.
#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// The names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The file's permission bits.
pub fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}
