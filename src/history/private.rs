//! The record kept from other users, however the plugin's cache folder came to be. Zellij makes
//! that folder as any folder (0755 under the usual umask: the plugin loaded by path or URL, a
//! wiped cache, another `XDG_CACHE_HOME`), and the plugin can neither give a file a mode nor
//! see one (WASI has none). So the plugin writes the record only where `PRIVATE_MARK` is, left
//! by this command, which runs as the user: once it has made the folder its user's alone
//! (0700) and the record in it (created 0600, so that the plugin never makes it). Until then
//! the plugin holds its entries and leaves `NO_RECORD`, by which the command finds the folder.
//!
//! The command does it after every question it asks (the plugin has loaded: its folder is
//! there), and as `history`, `answer` and `setup zellij --write` run. Never through a symbolic
//! link: the folder is opened without following one and changed through what was opened.
//! Where it cannot be done, the plugin keeps no record there, and `doctor` says why (`standing`).

use ask_popup_protocol::history::{FILE_NAME, NO_RECORD, PRIVATE_MARK};
use std::fs::File;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// What `PRIVATE_MARK` says to a person who finds it.
const MARK_TEXT: &str = "ask-popup made this folder private (0700): the plugin writes the record \
of questionnaires only where this file is.\n";
/// How a reason the command could not make the folder private starts its line in `NO_RECORD`.
const WHY: &str = "why: ";

/// Why the plugin keeps no record in its cache folder.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NotPrivate {
    #[error("no ask-popup command has made it private yet (Zellij made it readable by others)")]
    NotYet,
    #[error("it is a symbolic link, which ask-popup does not follow")]
    Link,
    #[error("it is not a folder")]
    NotAFolder,
    #[error("it belongs to another user (uid {0})")]
    Owner(u32),
    #[error("its file system keeps no modes: it stays readable by others (mode {0:o})")]
    NoModes(u32),
    #[error("the record in it is not a file of this user's")]
    Record,
    /// A reason an earlier attempt left in `NO_RECORD`, or an error of the system.
    #[error("{0}")]
    Said(String),
}

impl NotPrivate {
    /// What a person does about it.
    pub fn fix(&self) -> &'static str {
        match self {
            NotPrivate::NotYet => {
                "ask-popup history --limit 1 (it makes the folder private: what the popup holds is written then)"
            }
            NotPrivate::Link | NotPrivate::NotAFolder | NotPrivate::Owner(_) | NotPrivate::Record => {
                "remove it (Zellij makes the folder anew when the plugin loads), then ask-popup history --limit 1"
            }
            NotPrivate::NoModes(_) | NotPrivate::Said(_) => {
                "keep Zellij's cache folder on a file system with Unix modes (XDG_CACHE_HOME), or turn the record off: history false in the alias block"
            }
        }
    }
}

impl From<std::io::Error> for NotPrivate {
    fn from(e: std::io::Error) -> NotPrivate {
        NotPrivate::Said(e.to_string())
    }
}

/// Where the plugin's cache folder stands.
#[derive(Debug, PartialEq, Eq)]
pub enum Standing {
    /// Private and marked: the plugin writes the record there.
    Private,
    /// Marked once, and readable by others since (`mode`: the folder's, or the record's): the
    /// plugin writes the record there all the same.
    Opened(u32),
    /// The plugin keeps no record there.
    NotKept(NotPrivate),
}

/// Makes the plugin's cache folder `folder` and the record in it its user's alone, and marks
/// it so (then the plugin writes the record there).
pub fn make_private(folder: &Path) -> Result<(), NotPrivate> {
    let dir = open_folder(folder)?;
    let mode = dir.metadata()?.mode() & 0o7777;
    if mode != 0o700 {
        dir.set_permissions(std::fs::Permissions::from_mode(0o700))?;
    }
    let mode = dir.metadata()?.mode() & 0o777;
    if mode & 0o077 != 0 {
        let why = NotPrivate::NoModes(mode);
        // For `doctor`, which does not change the folder to find out.
        let _ = write_new(&folder.join(NO_RECORD), format!("{WHY}{why}\n").as_bytes());
        return Err(why);
    }
    let record = open_file(&folder.join(FILE_NAME), true)?;
    let meta = record.metadata()?;
    if !meta.is_file() || meta.uid() != this_uid() {
        return Err(NotPrivate::Record);
    }
    if meta.mode() & 0o777 != 0o600 {
        record.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    let mark = folder.join(PRIVATE_MARK);
    if std::fs::symlink_metadata(&mark).is_err() {
        write_new(&mark, MARK_TEXT.as_bytes())?;
    }
    match std::fs::remove_file(folder.join(NO_RECORD)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
        _ => Ok(()),
    }
}

/// Where the plugin's cache folder `folder` stands, looked at without changing anything.
pub fn standing(folder: &Path) -> Standing {
    let meta = match std::fs::symlink_metadata(folder) {
        Ok(meta) => meta,
        Err(e) => return Standing::NotKept(e.into()),
    };
    if meta.file_type().is_symlink() {
        return Standing::NotKept(NotPrivate::Link);
    }
    if !meta.is_dir() {
        return Standing::NotKept(NotPrivate::NotAFolder);
    }
    if meta.uid() != this_uid() {
        return Standing::NotKept(NotPrivate::Owner(meta.uid()));
    }
    let record = std::fs::symlink_metadata(folder.join(FILE_NAME));
    let marked = std::fs::symlink_metadata(folder.join(PRIVATE_MARK)).is_ok();
    match record {
        Ok(record) if marked && record.is_file() => {
            let open = [meta.mode(), record.mode()]
                .into_iter()
                .map(|mode| mode & 0o777)
                .find(|mode| mode & 0o077 != 0);
            match open {
                Some(mode) => Standing::Opened(mode),
                None => Standing::Private,
            }
        }
        _ => {
            let noted = std::fs::read_to_string(folder.join(NO_RECORD)).unwrap_or_default();
            Standing::NotKept(
                match noted.lines().next().and_then(|l| l.strip_prefix(WHY)) {
                    Some(why) => NotPrivate::Said(why.to_owned()),
                    None => NotPrivate::NotYet,
                },
            )
        }
    }
}

/// The folder at `path`, opened without following a symbolic link; refused when it is not a
/// folder of this user's.
fn open_folder(path: &Path) -> Result<File, NotPrivate> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let dir = match rustix::fs::open(path, flags, Mode::empty()) {
        Ok(dir) => File::from(dir),
        // A link is refused by O_NOFOLLOW (ELOOP, or ENOTDIR with O_DIRECTORY on some
        // systems): said as what it is.
        Err(e) => {
            return Err(match std::fs::symlink_metadata(path) {
                Ok(meta) if meta.file_type().is_symlink() => NotPrivate::Link,
                Ok(meta) if !meta.is_dir() => NotPrivate::NotAFolder,
                _ => std::io::Error::from(e).into(),
            })
        }
    };
    let uid = dir.metadata()?.uid();
    if uid != this_uid() {
        return Err(NotPrivate::Owner(uid));
    }
    Ok(dir)
}

/// The file at `path` (created 0600 when `create`), opened to append without following a
/// symbolic link, nor waiting on a pipe put in its place.
fn open_file(path: &Path, create: bool) -> Result<File, NotPrivate> {
    use rustix::fs::{Mode, OFlags};
    let mut flags =
        OFlags::WRONLY | OFlags::APPEND | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    if create {
        flags |= OFlags::CREATE;
    }
    match rustix::fs::open(path, flags, Mode::from_raw_mode(0o600)) {
        Ok(file) => Ok(File::from(file)),
        Err(rustix::io::Errno::LOOP) => Err(NotPrivate::Record),
        Err(e) => Err(std::io::Error::from(e).into()),
    }
}

/// Writes `bytes` as the whole of the file at `path` (created 0600), never through a link.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), NotPrivate> {
    use std::io::Write;
    let mut file = open_file(path, true)?;
    file.set_len(0)?;
    file.write_all(bytes)?;
    Ok(())
}

/// Empties the record at `path`, keeping the file and its mode (a record the plugin made anew
/// would have the Zellij server's umask's); a link is not followed.
pub fn clear(path: &Path) -> std::io::Result<()> {
    match open_file(path, false) {
        Ok(file) => file.set_len(0),
        Err(NotPrivate::Record) => std::fs::remove_file(path),
        Err(e) => Err(std::io::Error::other(e)),
    }
}

fn this_uid() -> u32 {
    crate::zellij::children::this_uid()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path).unwrap().mode() & 0o777
    }

    fn set_mode(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    /// A plugin cache folder as Zellij makes it (0755), where the plugin left its notice.
    fn as_zellij_made_it(root: &Path) -> PathBuf {
        let folder = root.join("file:").join("plugin.wasm").join("plugin_cache");
        std::fs::create_dir_all(&folder).unwrap();
        set_mode(&folder, 0o755);
        std::fs::write(folder.join(NO_RECORD), "ask-popup keeps no record\n").unwrap();
        folder
    }

    #[test]
    fn a_folder_zellij_made_open_keeps_no_record_until_made_private_and_marked() {
        let root = tempfile::tempdir().unwrap();
        let folder = as_zellij_made_it(root.path());
        assert_eq!(standing(&folder), Standing::NotKept(NotPrivate::NotYet));
        make_private(&folder).unwrap();
        assert_eq!(mode(&folder), 0o700);
        assert_eq!(mode(&folder.join(FILE_NAME)), 0o600);
        assert!(folder.join(PRIVATE_MARK).is_file());
        assert!(!folder.join(NO_RECORD).exists());
        assert_eq!(standing(&folder), Standing::Private);
        // Again: nothing more to do, and the record is kept as it is.
        std::fs::write(folder.join(FILE_NAME), "{}\n").unwrap();
        make_private(&folder).unwrap();
        assert_eq!(
            std::fs::read_to_string(folder.join(FILE_NAME)).unwrap(),
            "{}\n"
        );
    }

    #[test]
    fn a_record_an_earlier_version_left_open_is_made_private_with_its_folder() {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("plugin_cache");
        std::fs::create_dir(&folder).unwrap();
        set_mode(&folder, 0o755);
        std::fs::write(folder.join(FILE_NAME), "{}\n").unwrap();
        set_mode(&folder.join(FILE_NAME), 0o644);
        assert_eq!(standing(&folder), Standing::NotKept(NotPrivate::NotYet));
        make_private(&folder).unwrap();
        assert_eq!(mode(&folder), 0o700);
        assert_eq!(mode(&folder.join(FILE_NAME)), 0o600);
        assert_eq!(
            std::fs::read_to_string(folder.join(FILE_NAME)).unwrap(),
            "{}\n"
        );
    }

    #[test]
    fn a_marked_folder_opened_since_is_said_so_and_made_private_again() {
        let root = tempfile::tempdir().unwrap();
        let folder = as_zellij_made_it(root.path());
        make_private(&folder).unwrap();
        set_mode(&folder, 0o755);
        assert_eq!(standing(&folder), Standing::Opened(0o755));
        set_mode(&folder, 0o700);
        set_mode(&folder.join(FILE_NAME), 0o644);
        assert_eq!(standing(&folder), Standing::Opened(0o644));
        make_private(&folder).unwrap();
        assert_eq!(standing(&folder), Standing::Private);
    }

    #[test]
    fn a_folder_that_is_a_link_is_neither_followed_nor_marked() {
        let root = tempfile::tempdir().unwrap();
        let elsewhere = as_zellij_made_it(root.path());
        let link = root.path().join("plugin_cache");
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        assert_eq!(make_private(&link), Err(NotPrivate::Link));
        assert_eq!(mode(&elsewhere), 0o755);
        assert!(!elsewhere.join(PRIVATE_MARK).exists());
        assert_eq!(standing(&link), Standing::NotKept(NotPrivate::Link));
    }

    #[test]
    fn a_record_that_is_a_link_is_not_followed_and_the_folder_not_marked() {
        let root = tempfile::tempdir().unwrap();
        let folder = as_zellij_made_it(root.path());
        let outside = root.path().join("outside");
        std::fs::write(&outside, "").unwrap();
        set_mode(&outside, 0o644);
        std::os::unix::fs::symlink(&outside, folder.join(FILE_NAME)).unwrap();
        assert_eq!(make_private(&folder), Err(NotPrivate::Record));
        assert_eq!(mode(&outside), 0o644);
        assert!(!folder.join(PRIVATE_MARK).exists());
        assert!(matches!(standing(&folder), Standing::NotKept(_)));
    }

    #[test]
    fn a_reason_an_attempt_left_is_what_standing_says() {
        let root = tempfile::tempdir().unwrap();
        let folder = as_zellij_made_it(root.path());
        let why = NotPrivate::NoModes(0o755);
        write_new(&folder.join(NO_RECORD), format!("{WHY}{why}\n").as_bytes()).unwrap();
        assert_eq!(
            standing(&folder),
            Standing::NotKept(NotPrivate::Said(why.to_string()))
        );
    }

    #[test]
    fn clearing_the_record_keeps_the_file_and_its_mode() {
        let root = tempfile::tempdir().unwrap();
        let folder = as_zellij_made_it(root.path());
        make_private(&folder).unwrap();
        let record = folder.join(FILE_NAME);
        std::fs::write(&record, "{}\n").unwrap();
        clear(&record).unwrap();
        assert_eq!(std::fs::read_to_string(&record).unwrap(), "");
        assert_eq!(mode(&record), 0o600);
    }
}
