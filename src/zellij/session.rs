//! Whether the Zellij session a caller waits on is still there: where its server listens, and
//! what the answers of that socket over a wait say. A server that dies (killed, or taken by the
//! out-of-memory killer) never ends its CLI clients: each `zellij pipe` then waits for good,
//! spinning a core, and so would every agent waiting on one. The command looks at the socket
//! while it waits and gives up once the server is surely gone.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The folder under the socket dir that Zellij 0.45's server and clients agree on
/// (zellij-utils' `CLIENT_SERVER_CONTRACT_DIR`).
pub const CONTRACT_DIR: &str = "contract_version_1";

/// How many looks in a row must find no server before the session counts as gone.
pub const MISSES_TO_GONE: u32 = 2;
/// How often a waiting caller looks, in milliseconds.
pub const LOOK_EVERY_MS: u64 = 1000;

/// The socket the session's server listens on, as Zellij 0.45 places it: in `socket_dir`, then
/// the session's name. None outside a named session.
pub fn socket_path(
    env: impl Fn(&str) -> Option<String>,
    uid: u32,
    temp_dir: &Path,
    linux: bool,
) -> Option<PathBuf> {
    let session = env("ZELLIJ_SESSION_NAME").filter(|v| !v.is_empty())?;
    if session.contains('/') {
        return None;
    }
    Some(socket_dir(env, uid, temp_dir, linux).join(session))
}

/// The folder of every session's socket, as Zellij 0.45 places it: in `$ZELLIJ_SOCKET_DIR`,
/// else in `$XDG_RUNTIME_DIR/zellij` (Linux, when that is an absolute path), else in
/// `<temp dir>/zellij-<uid>`; then the contract folder.
pub fn socket_dir(
    env: impl Fn(&str) -> Option<String>,
    uid: u32,
    temp_dir: &Path,
    linux: bool,
) -> PathBuf {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    let runtime = set("XDG_RUNTIME_DIR")
        .filter(|dir| linux && Path::new(dir).is_absolute())
        .map(|dir| Path::new(&dir).join("zellij"));
    let dir = set("ZELLIJ_SOCKET_DIR")
        .map(PathBuf::from)
        .or(runtime)
        .unwrap_or_else(|| temp_dir.join(format!("zellij-{uid}")));
    dir.join(CONTRACT_DIR)
}

/// What one look at the socket found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// A server took the connection.
    Listening,
    /// The socket is there but nobody listens (the server died without removing it).
    Refused,
    /// No socket at that path (the server ended and removed it, or it is elsewhere).
    Missing,
    /// Anything else (permissions, too many open files): says nothing either way.
    Unknown,
}

/// The looks of one wait, and what they add up to. A path that never answered tells nothing
/// (the socket may live where this command does not know to look), so the session counts as
/// gone only after its server was seen listening and then was not there, `MISSES_TO_GONE` looks
/// in a row.
#[derive(Clone, Debug, Default)]
pub struct Watch {
    seen_listening: bool,
    misses: u32,
}

impl Watch {
    /// Takes one look's finding; true once the session's server is gone.
    pub fn look(&mut self, look: Look) -> bool {
        match look {
            Look::Listening => {
                self.seen_listening = true;
                self.misses = 0;
            }
            Look::Refused | Look::Missing if self.seen_listening => {
                self.misses = self.misses.saturating_add(1);
            }
            Look::Refused | Look::Missing | Look::Unknown => {}
        }
        self.gone()
    }

    /// Whether the looks so far say the server is gone.
    pub fn gone(&self) -> bool {
        self.seen_listening && self.misses >= MISSES_TO_GONE
    }
}

/// Where Linux lists every Unix socket of this network namespace, with the path each is bound
/// to.
pub const PROC_NET_UNIX: &str = "/proc/net/unix";

/// The paths of the Unix sockets a process listens on, read from a table in the format of
/// Linux's `/proc/net/unix`: a line per socket, `Num RefCount Protocol Flags Type St Inode
/// Path`, a listening one with `__SO_ACCEPTCON` (`00010000`) among its flags and state `01`,
/// its path last (a path the socket is bound to; `@…` is an abstract name, no file). A Zellij
/// session's server listens on its socket for as long as it runs, so its socket's path is
/// here while it lives and not once it died, however its socket file was left. Reading this
/// tells it without connecting, which a Zellij 0.45.1 server takes for a client.
pub fn listening_paths(table: &str) -> HashSet<PathBuf> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let flags = fields.nth(3)?;
            let state = fields.nth(1)?;
            let flags = u32::from_str_radix(flags, 16).ok()?;
            let listening = flags & ACCEPTCON != 0 && state == "01";
            let path = after_fields(line, 7)?;
            (listening && path.starts_with('/')).then(|| PathBuf::from(path))
        })
        .collect()
}

/// `__SO_ACCEPTCON`: the socket accepts connections (it listens).
const ACCEPTCON: u32 = 0x0001_0000;

/// What follows the first `n` blank-separated fields of `line` and the one space after them
/// (a path may hold spaces of its own).
fn after_fields(line: &str, n: usize) -> Option<&str> {
    let mut rest = line;
    for _ in 0..n {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace)?;
        rest = rest.get(end..)?;
    }
    rest.strip_prefix(' ').filter(|path| !path.is_empty())
}

/// Whether the socket file at `socket` is one of `listening` (`listening_paths`): by its path,
/// or, reached by another path (a folder through a link), by being the same file.
pub fn is_listening(listening: &HashSet<PathBuf>, socket: &Path) -> bool {
    if listening.contains(socket) {
        return true;
    }
    use std::os::unix::fs::MetadataExt;
    let Ok(file) = std::fs::metadata(socket) else {
        return false;
    };
    listening
        .iter()
        .filter(|path| path.file_name() == socket.file_name())
        .filter_map(|path| std::fs::metadata(path).ok())
        .any(|other| other.dev() == file.dev() && other.ino() == file.ino())
}

/// How many clients a session's metadata says are attached (`connected_clients N`, a line of
/// the `session-metadata.kdl` Zellij rewrites whenever what it says changed); None when it says
/// nothing.
pub fn connected_clients(metadata: &str) -> Option<usize> {
    metadata.lines().find_map(|line| {
        line.strip_prefix("connected_clients ")
            .and_then(|n| n.trim().parse().ok())
    })
}

/// A live Zellij session, and how many clients are attached to it (None: unknown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveSession {
    pub name: String,
    pub clients: Option<usize>,
}

impl LiveSession {
    /// Whether somebody is attached to it (an unknown count is nobody).
    pub fn attached(&self) -> bool {
        self.clients.is_some_and(|n| n > 0)
    }
}

/// The folder Zellij 0.45 keeps each session's metadata in (`<name>/session-metadata.kdl`):
/// `$XDG_CACHE_HOME/zellij` (or `~/.cache/zellij`), then its contract folder, then
/// `session_info`.
pub fn session_info_dir(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    let cache = set("XDG_CACHE_HOME")
        .filter(|d| Path::new(d).is_absolute())
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|home| Path::new(&home).join(".cache")))?;
    Some(cache.join("zellij").join(CONTRACT_DIR).join("session_info"))
}
