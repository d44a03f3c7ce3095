//! Asking from outside Zellij: `ask-popup serve` listens on a private Unix socket and asks what
//! comes on it in the Zellij session the person is attached to; `ask-popup ask` run where no
//! session is reachable sends its questionnaire through that socket (forwarded by `ssh -R`, or
//! mounted into a container) and prints the envelope that comes back.
//!
//! The wire is one line each way: the caller writes one JSON object (`Frame`) ending in a
//! newline, the server writes one envelope line and closes. The caller closing the connection
//! before the envelope withdraws the question (closing only its writing half does not). Who
//! each end trusts is decided here too (`check_socket`, `check_listener`, `serves`), and which
//! socket; `server.rs` and `client.rs` do the I/O. Which session a question goes to is
//! `inbox::routes`.

use crate::ask::{agent_value, Caller};
use ask_popup_protocol::request::{self, RequestError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The environment variable naming the socket.
pub const SOCKET_ENV: &str = "ASK_POPUP_SOCKET";
/// The socket's file name in `$XDG_RUNTIME_DIR` (the default path, on both ends).
pub const SOCKET_NAME: &str = "ask-popup.sock";
/// The most bytes one frame may take: the largest questionnaire, and room for who asks.
pub const MAX_FRAME_BYTES: usize = request::MAX_PAYLOAD_BYTES + 16 * 1024;

/// What a caller sends: who asks, and the questionnaire as `ask::prepare` made it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Frame {
    /// The asking agent's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The request id, and whether the caller chose it.
    pub id: String,
    #[serde(default)]
    pub id_given: bool,
    /// The caller's `$ZELLIJ_PANE_ID` and `$ZELLIJ_SESSION_NAME`, when it passed them on
    /// (`ssh -o SendEnv`, `docker -e`): the pane that is marked while it waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The caller's host name, shown with the agent's when no pane is named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// For an agent's permission prompt, the approval hook that asks it (`Caller::approval_by`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_by: Option<String>,
    /// The questionnaire, one line of JSON.
    pub questionnaire: String,
}

impl Frame {
    /// The frame of a caller's question, as one line.
    pub fn line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }

    /// The caller as the popup sees it: the pane when one was passed on, else the agent named
    /// with the host it asks from (`claude@buildbox`), so the person knows where it came from.
    pub fn caller(&self, this_host: Option<&str>) -> Caller {
        let pane_id = self.pane_id.clone().filter(|p| !p.is_empty());
        let agent = self.agent.clone().filter(|a| !a.is_empty());
        let host = self
            .host
            .as_deref()
            .filter(|h| !h.is_empty() && Some(*h) != this_host);
        let agent = match (pane_id.is_some(), agent, host) {
            (false, Some(agent), Some(host)) => {
                Some(agent_value(&format!("{}@{host}", agent_value(&agent))))
            }
            (false, None, Some(host)) => Some(agent_value(&format!("agent@{host}"))),
            (_, agent, _) => agent,
        };
        Caller {
            pane_id,
            agent,
            id: self.id.clone(),
            id_given: self.id_given,
            approval_by: self.approval_by.clone(),
        }
    }
}

/// Reads one frame: a line of at most `MAX_FRAME_BYTES`. Junk, a frame cut short, or one too
/// large is an error the caller gets as its envelope (the one that `ask` gives for the same
/// fault in a questionnaire).
pub fn read_frame(input: impl std::io::BufRead) -> Result<Frame, RequestError> {
    use std::io::BufRead;
    let unreadable = |detail: String| RequestError::Unreadable { detail };
    let mut bytes = Vec::new();
    let mut limited = input.take(MAX_FRAME_BYTES as u64 + 1);
    limited
        .read_until(b'\n', &mut bytes)
        .map_err(|e| unreadable(e.to_string()))?;
    if bytes.len() > MAX_FRAME_BYTES {
        // Not counted to its end: the caller is told the limit it passed.
        return Err(RequestError::PayloadTooLarge { bytes: bytes.len() });
    }
    if bytes.last() != Some(&b'\n') {
        return Err(unreadable(
            "the request ended before its line did (a frame is one line of JSON)".to_owned(),
        ));
    }
    let frame: Frame = serde_json::from_slice(&bytes)
        .map_err(|e| unreadable(format!("the request is not an ask-popup frame: {e}")))?;
    if frame.id.trim().is_empty() {
        // Its reply could not be told from another's, nor the question taken back.
        return Err(unreadable(
            "the frame's \"id\" is empty (every question needs its own)".to_owned(),
        ));
    }
    Ok(frame)
}

/// The socket a caller sends to and `serve` listens on: `$ASK_POPUP_SOCKET`, else
/// `ask-popup.sock` in `$XDG_RUNTIME_DIR`, else in a folder of the user's own in the temp dir.
pub fn socket_path(env: impl Fn(&str) -> Option<String>, uid: u32, temp_dir: &Path) -> PathBuf {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    if let Some(path) = set(SOCKET_ENV) {
        return PathBuf::from(path);
    }
    match set("XDG_RUNTIME_DIR").filter(|d| Path::new(d).is_absolute()) {
        Some(dir) => Path::new(&dir).join(SOCKET_NAME),
        None => temp_dir.join(format!("ask-popup-{uid}")).join(SOCKET_NAME),
    }
}

/// The environment variable naming the other users (their uids, comma-separated) the socket's
/// two ends trust besides their own: for a container whose user is not the server's.
pub const TRUST_ENV: &str = "ASK_POPUP_TRUST_UID";

/// Whom one end of the socket trusts: its own uid, and those `$ASK_POPUP_TRUST_UID` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trust {
    pub own: u32,
    pub others: Vec<u32>,
}

impl Trust {
    /// `own`, and the uids of `setting` (`$ASK_POPUP_TRUST_UID`); what is not a number is left
    /// out.
    pub fn new(own: u32, setting: Option<&str>) -> Trust {
        let others = setting
            .unwrap_or_default()
            .split(',')
            .filter_map(|uid| uid.trim().parse().ok())
            .filter(|uid| *uid != own)
            .collect();
        Trust { own, others }
    }

    /// Whether `uid` is one this end trusts.
    pub fn trusts(&self, uid: u32) -> bool {
        uid == self.own || self.others.contains(&uid)
    }
}

/// What a file's metadata says of who may change it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owned {
    pub uid: u32,
    /// Its mode's permission bits.
    pub mode: u32,
}

impl Owned {
    fn writable_by_others(self) -> bool {
        self.mode & 0o022 != 0
    }
}

/// Why a socket, its folder or whoever listens on it is not asked through: the user-visible
/// texts, in one place.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Untrusted {
    #[error("it is not a socket")]
    NotASocket,
    #[error(
        "the socket belongs to uid {0}, not to you ($ASK_POPUP_TRUST_UID names a uid to trust)"
    )]
    SocketOwner(u32),
    #[error("the socket can be written by other users (mode {0:o})")]
    SocketWritable(u32),
    #[error(
        "its folder belongs to uid {0}, not to you ($ASK_POPUP_TRUST_UID names a uid to trust)"
    )]
    FolderOwner(u32),
    #[error(
        "its folder can be written by other users (mode {0:o}): anyone could put a socket there"
    )]
    FolderWritable(u32),
    #[error("uid {0} listens on it, not you ($ASK_POPUP_TRUST_UID names a uid to trust)")]
    Listener(u32),
}

/// Whether a caller asks through the socket `socket` in the folder `folder`: the socket is
/// the caller's (or a trusted uid's) and writable by nobody else, and so is its folder, which
/// may also be root's (only root could put anything in it, and root is trusted by every
/// process anyway). What listens on it is checked once connected (`check_listener`).
pub fn check_socket(
    socket: Owned,
    is_socket: bool,
    folder: Owned,
    trust: &Trust,
) -> Result<(), Untrusted> {
    if !is_socket {
        return Err(Untrusted::NotASocket);
    }
    if !trust.trusts(folder.uid) && folder.uid != 0 {
        return Err(Untrusted::FolderOwner(folder.uid));
    }
    if folder.writable_by_others() {
        return Err(Untrusted::FolderWritable(folder.mode));
    }
    if !trust.trusts(socket.uid) {
        return Err(Untrusted::SocketOwner(socket.uid));
    }
    if socket.writable_by_others() {
        return Err(Untrusted::SocketWritable(socket.mode));
    }
    Ok(())
}

/// Whether the process listening on the socket (its uid, from the connection's credentials)
/// is one the caller trusts: the caller's questions, commands and diffs go to it, and its
/// answer is taken for the person's.
pub fn check_listener(uid: u32, trust: &Trust) -> Result<(), Untrusted> {
    if trust.trusts(uid) {
        Ok(())
    } else {
        Err(Untrusted::Listener(uid))
    }
}

/// Why a folder the command keeps to its user (`serve`'s socket, the notes of questions that
/// wait where nobody is attached) is not used: the user-visible texts, in one place.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotOwnFolder {
    #[error("it belongs to uid {0}, not to you")]
    Owner(u32),
    #[error("other users can write to it (mode {0:o})")]
    Writable(u32),
    #[error("it is a symbolic link")]
    Link,
}

/// Whether the command uses `folder` (`is_link`: the path names a symbolic link, never
/// followed) as one of user `own`'s: it is that user's, and nobody else may write to it. A
/// link is refused whoever made it: its target is whatever its maker picked (another user's
/// folder in a shared temp dir, pointed at a folder of this user's that the command would
/// then change), and it may be pointed elsewhere between a look and a use.
pub fn check_own_folder(folder: Owned, is_link: bool, own: u32) -> Result<(), NotOwnFolder> {
    if is_link {
        return Err(NotOwnFolder::Link);
    }
    if folder.uid != own {
        return Err(NotOwnFolder::Owner(folder.uid));
    }
    if folder.writable_by_others() {
        return Err(NotOwnFolder::Writable(folder.mode));
    }
    Ok(())
}

/// Whether `serve` answers a caller of uid `uid`: one it trusts, or root (which can connect
/// to any socket and act as any user, so refusing it protects nothing).
pub fn serves(uid: u32, trust: &Trust) -> bool {
    uid == 0 || trust.trusts(uid)
}

/// The reply to the question `id` in what the server wrote: its first envelope, when it carries
/// `id`, or is an error that names no request (the server's own failure for a caller whose id
/// it made up, or its `busy` before reading the frame). Anything else (another request's
/// answer, no envelope) is no reply: it is never taken for this question's answer.
pub fn reply_for(written: &[u8], id: &str) -> Option<String> {
    use ask_popup_protocol::envelope::Envelope;
    let text = String::from_utf8_lossy(written);
    let line = text.lines().find(|line| Envelope::read(line).is_some())?;
    let envelope = Envelope::read(line)?;
    let ours = match envelope.request_id() {
        Some(theirs) => theirs == id,
        None => envelope.error().is_some(),
    };
    ours.then(|| format!("{line}\n"))
}
