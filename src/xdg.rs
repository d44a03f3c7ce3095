//! Where the XDG base-directory spec puts a user's files: the folder a variable such as
//! `$XDG_CONFIG_HOME` names when it holds an absolute path (the spec ignores any other), else
//! its default under `$HOME`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// `file` in the folder `var` names, or in `$HOME/<default>` (e.g. `.config`, `.local/state`);
/// None without either.
pub fn path_of(
    var: Option<&OsStr>,
    home: Option<&OsStr>,
    default: &str,
    file: &str,
) -> Option<PathBuf> {
    let dir = match var.map(Path::new).filter(|dir| dir.is_absolute()) {
        Some(dir) => dir.to_path_buf(),
        None => Path::new(home.filter(|h| !h.is_empty())?).join(default),
    };
    Some(dir.join(file))
}
