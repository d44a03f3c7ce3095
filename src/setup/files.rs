//! The files setup reads and writes: a config file edited with the old one kept as `.bak`,
//! files written whole, and whether they hold what this command carries.

use ask_popup_protocol::atomic_file::{self, READABLE};
use std::path::{Path, PathBuf};

/// A file's text; None when there is no such file, an error that names it when it cannot be
/// read.
pub fn read_text(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Edits the file at `path` (`what` names it in messages) with `change` (None: nothing to do),
/// or, without `write`, says what it would do. The old text is kept as `<file>.bak`; a new
/// file gets `new_mode` (`atomic_file::OWNER_ONLY` for one that may hold secrets).
pub fn edit(
    path: &Path,
    what: &str,
    write: bool,
    new_mode: u32,
    change: impl FnOnce(&str) -> Result<Option<String>, String>,
) -> i32 {
    let existing = match read_text(path) {
        Ok(text) => text,
        Err(e) => {
            say_err!("ask-popup setup {what}: {e}");
            return 1;
        }
    };
    let new = match change(existing.as_deref().unwrap_or("")) {
        Ok(new) => new,
        Err(e) => {
            say_err!("ask-popup setup {what}: left {} alone: {e}", path.display());
            return 1;
        }
    };
    let Some(new) = new else {
        say!("{}: nothing to change", path.display());
        return 0;
    };
    if !write {
        say!("Would change {}", path.display());
        return 0;
    }
    let backup = PathBuf::from(format!("{}.bak", path.display()));
    let written = (|| -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        if existing.is_some() {
            atomic_file::copy(path, &backup)?;
        }
        atomic_file::write(path, new.as_bytes(), new_mode)
    })();
    match written {
        Ok(()) => {
            say!("Changed {}", path.display());
            if existing.is_some() {
                say!("the previous file is kept as {}", backup.display());
            }
            0
        }
        Err(e) => {
            say_err!(
                "ask-popup setup {what}: cannot write {}: {e}",
                path.display()
            );
            1
        }
    }
}

pub fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// Writes `files` (`(path in dir, text)`) into `dir`, each whole, making the folders they need.
pub fn write_files(dir: &Path, files: &[(&str, &str)]) -> std::io::Result<()> {
    for (file, text) in files {
        let path = dir.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        atomic_file::write(&path, text.as_bytes(), READABLE)?;
    }
    Ok(())
}

/// Whether `dir` holds every one of `files` as given.
pub fn files_current(dir: &Path, files: &[(&str, &str)]) -> bool {
    files
        .iter()
        .all(|(file, text)| std::fs::read_to_string(dir.join(file)).is_ok_and(|t| t == *text))
}
