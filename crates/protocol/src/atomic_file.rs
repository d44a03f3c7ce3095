//! Writes a file whole or not at all: the new bytes go to a temporary file beside it, are flushed
//! to the disk, and take the old file's place in one rename. A reader (Zellij reloads
//! `config.kdl` while it runs), a crash or a full disk in between sees the old file or the new
//! one, never a torn one; on any error the old file is left as it was and the temporary file is
//! removed.
//!
//! The temporary file is `tempfile`'s (a unique name, created exclusively, removed when dropped
//! unless it was renamed into place), so the same code serves the command and the plugin
//! (wasm32-wasip1, where modes, owners and folder syncs do not exist and are skipped).

use std::fs::{self, File, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The mode of a new file that may hold secrets (an agent's settings can carry API keys in
/// their environment): its owner's only.
pub const OWNER_ONLY: u32 = 0o600;
/// The mode of a new file anyone on the machine may read (a plugin, Zellij's config).
pub const READABLE: u32 = 0o644;
/// How many symbolic links a path may go through, as Linux's `MAXSYMLINKS`.
const MAX_LINKS: usize = 40;

/// Writes `contents` to `path` at once. An existing file keeps its mode (and, where allowed, its
/// owner); a new one gets `new_mode` (less the umask, as any new file). A symbolic link stays a
/// link: the file at its end is written.
pub fn write(path: &Path, contents: &[u8], new_mode: u32) -> io::Result<()> {
    write_with(path, new_mode, |out| out.write_all(contents))
}

/// `write`, with what goes into the file written by `fill`: an error from it (or from anything
/// after) leaves the old file whole.
pub fn write_with(
    path: &Path,
    new_mode: u32,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let target = final_target(path)?;
    let old = fs::metadata(&target).ok().filter(fs::Metadata::is_file);
    let mode = match &old {
        Some(old) => Mode::Exactly(old.permissions()),
        None => Mode::New(new_mode),
    };
    replace(&target, mode, old.as_ref(), fill)
}

/// Copies `from` to `to` at once, with `from`'s mode (a backup of a private file stays
/// private, whatever an older backup's mode was).
pub fn copy(from: &Path, to: &Path) -> io::Result<()> {
    let bytes = fs::read(from)?;
    let mode = Mode::Exactly(fs::metadata(from)?.permissions());
    let target = final_target(to)?;
    let old = fs::metadata(&target).ok().filter(fs::Metadata::is_file);
    replace(&target, mode, old.as_ref(), |out| out.write_all(&bytes))
}

/// The mode the written file gets.
enum Mode {
    /// A new file's: this, less the umask (unix only: elsewhere files have no mode).
    #[cfg_attr(not(unix), allow(dead_code))]
    New(u32),
    /// This, exactly.
    Exactly(Permissions),
}

/// Writes the file at `target` (not a link) anew through a temporary file in its folder.
fn replace(
    target: &Path,
    mode: Mode,
    old: Option<&fs::Metadata>,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(target.file_name().unwrap_or_default());
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Created no wider than it will be, so a private file's text is never readable by others,
        // not even for a moment.
        builder.permissions(match &mode {
            Mode::New(bits) => Permissions::from_mode(*bits),
            Mode::Exactly(permissions) => permissions.clone(),
        });
    }
    // Dropped on any error below, the temporary file is removed.
    let mut temp = builder.tempfile_in(dir)?;
    if let Mode::Exactly(permissions) = mode {
        exact_mode(temp.as_file(), permissions)?;
    }
    if let Some(old) = old {
        keep_owner(temp.as_file(), old);
    }
    let file = temp.as_file_mut();
    fill(file)?;
    file.flush()?;
    file.sync_all()?;
    temp.persist(target).map_err(|e| e.error)?;
    sync_dir(dir);
    Ok(())
}

/// The file `path` names: itself, or for a symbolic link the file at the end of its chain
/// (which need not exist yet), so that writing it keeps the link a link.
fn final_target(path: &Path) -> io::Result<PathBuf> {
    let mut target = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&target) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&target)?;
                // A relative link is relative to its own folder (an absolute one replaces it).
                target = match target.parent() {
                    Some(dir) => dir.join(link),
                    None => link,
                };
            }
            _ => return Ok(target),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// Gives `file` exactly `permissions` (not masked by the umask, as a new file's are).
#[cfg(unix)]
fn exact_mode(file: &File, permissions: Permissions) -> io::Result<()> {
    file.set_permissions(permissions)
}

#[cfg(not(unix))]
fn exact_mode(_file: &File, _permissions: Permissions) -> io::Result<()> {
    Ok(())
}

/// Gives `file` the old file's owner and group when they are not ours, as far as we may
/// (root may; others may keep a group of theirs). Writing in place kept them; a renamed-in file
/// is its writer's, and a config that `sudo` rewrote would no longer be its user's to edit.
#[cfg(unix)]
fn keep_owner(file: &File, old: &fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let Ok(new) = file.metadata() else {
        return;
    };
    if (new.uid(), new.gid()) != (old.uid(), old.gid()) {
        // Not allowed (another user's file we may write through its group): the file is
        // still written, as ours.
        let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
    }
}

#[cfg(not(unix))]
fn keep_owner(_file: &File, _old: &fs::Metadata) {}

/// Flushes the folder's entry for the renamed file to the disk, where the system allows it (a
/// folder opened as a file); without it a crash could still lose the rename.
#[cfg(unix)]
fn sync_dir(dir: &Path) {
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) {}
