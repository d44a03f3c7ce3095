//! The socket as both ends see it on this machine: its path, whom it trusts, the uid at the
//! other end of a connection, who owns a file, and the folders the command keeps to its user
//! (the socket's, the notes of questions that wait where nobody is attached).

use super::wire::{self, Owned, Trust};
use crate::zellij::children::this_uid;
use std::os::unix::fs::MetadataExt;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

/// Whom this end of the socket trusts: this user, and `$ASK_POPUP_TRUST_UID`.
pub fn trust() -> Trust {
    Trust::new(this_uid(), std::env::var(wire::TRUST_ENV).ok().as_deref())
}

/// The uid of the process at the other end of a connection (`SO_PEERCRED`, `getpeereid`).
pub fn peer_uid(stream: &UnixStream) -> std::io::Result<u32> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        Ok(rustix::net::sockopt::socket_peercred(stream)?.uid.as_raw())
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let (mut uid, mut gid) = (0, 0);
        // SAFETY: a socket this function borrows, and two out-parameters valid for the call.
        if unsafe { libc::getpeereid(stream.as_raw_fd(), &mut uid, &mut gid) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(uid)
    }
}

/// Who owns a file and who may write it.
pub fn owned(meta: &std::fs::Metadata) -> Owned {
    Owned {
        uid: meta.uid(),
        mode: meta.mode() & 0o7777,
    }
}

/// Opens `dir`, a folder this command keeps to its user, never through a symbolic link: made
/// (0700) when missing and `make` says so, nothing above it, and refused
/// (`wire::check_own_folder`) when it is not this user's, others may write to it, or it is a
/// link. What is done to the folder itself is done through the file returned (its mode set
/// with `fchmod`); files in it are reached by path, which only this user can change there.
pub fn own_folder(dir: &Path, make: bool) -> std::io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    if make {
        match rustix::fs::mkdir(dir, Mode::from_raw_mode(0o700)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let refused = |why: wire::NotOwnFolder| std::io::Error::other(why);
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let folder = match rustix::fs::open(dir, flags, Mode::empty()) {
        Ok(folder) => std::fs::File::from(folder),
        Err(e) => {
            // A link is refused by O_NOFOLLOW (ELOOP, or ENOTDIR with O_DIRECTORY on some
            // systems): said as the check says it, not as the open's errno.
            if let Ok(link) = std::fs::symlink_metadata(dir) {
                let is_link = link.file_type().is_symlink();
                wire::check_own_folder(owned(&link), is_link, this_uid()).map_err(refused)?;
            }
            return Err(e.into());
        }
    };
    wire::check_own_folder(owned(&folder.metadata()?), false, this_uid()).map_err(refused)?;
    Ok(folder)
}

/// The socket this user's callers and server use (`wire::socket_path`).
pub fn socket_path() -> PathBuf {
    wire::socket_path(
        |name| std::env::var(name).ok(),
        this_uid(),
        &std::env::temp_dir(),
    )
}

/// This machine's name as the popup shows it: `$ASK_POPUP_HOST` (a container's host name is
/// often a random one), else the host name.
pub fn host_name() -> Option<String> {
    if let Some(name) = std::env::var("ASK_POPUP_HOST")
        .ok()
        .filter(|n| !n.is_empty())
    {
        return Some(name);
    }
    let uname = rustix::system::uname();
    let name = uname.nodename().to_string_lossy().trim().to_owned();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .expect("stat")
            .permissions()
            .mode()
            & 0o7777
    }

    fn refusal(result: std::io::Result<std::fs::File>) -> String {
        match result {
            Ok(_) => panic!("the folder was taken"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn an_own_folder_is_made_private_and_nothing_above_it() {
        let temp = tempfile::tempdir().expect("a temp dir");
        let dir = temp.path().join("mine");
        assert!(own_folder(&dir, false).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound));
        assert!(!dir.exists(), "made without being asked to");
        own_folder(&dir, true).expect("made");
        assert_eq!(mode(&dir) & 0o077, 0);
        own_folder(&dir, false).expect("taken as it is");
        // Nothing above it.
        let deep = temp.path().join("a").join("b");
        assert!(own_folder(&deep, true).is_err());
        assert!(!temp.path().join("a").exists());
    }

    #[test]
    fn a_folder_others_may_write_or_a_link_is_refused_and_left_as_it_was() {
        let temp = tempfile::tempdir().expect("a temp dir");
        let open = temp.path().join("open");
        std::fs::create_dir(&open).expect("mkdir");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        assert_eq!(
            refusal(own_folder(&open, true)),
            "other users can write to it (mode 777)"
        );
        assert_eq!(mode(&open), 0o777);

        // A link to a folder of this user's, as another user may put one where the command
        // makes its folder: refused, and the folder it points at is not touched.
        let target = temp.path().join("target");
        std::fs::create_dir(&target).expect("mkdir");
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let link = temp.path().join("link");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        for make in [true, false] {
            assert_eq!(refusal(own_folder(&link, make)), "it is a symbolic link");
        }
        assert_eq!(mode(&target), 0o755);
        assert_eq!(std::fs::read_dir(&target).expect("read").count(), 0);
        // A dangling one too: nothing is made at its end.
        let dangling = temp.path().join("dangling");
        std::os::unix::fs::symlink(temp.path().join("nowhere"), &dangling).expect("symlink");
        assert_eq!(
            refusal(own_folder(&dangling, true)),
            "it is a symbolic link"
        );
        assert!(!temp.path().join("nowhere").exists());
    }
}
