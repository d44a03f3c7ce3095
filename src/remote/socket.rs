//! The socket as both ends see it on this machine: its path, whom it trusts, the uid at the
//! other end of a connection, and who owns a file.

use super::wire::{self, Owned, Trust};
use crate::zellij::children::this_uid;
use std::os::unix::fs::MetadataExt;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;

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
