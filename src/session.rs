//! Whether the Zellij session a caller waits on is still there: where its server listens, and
//! what the answers of that socket over a wait say. A server that dies (killed, or taken by the
//! out-of-memory killer) never ends its CLI clients: each `zellij pipe` then waits for good,
//! spinning a core, and so would every agent waiting on one. The command looks at the socket
//! while it waits and gives up once the server is surely gone.

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
