//! The `zellij` processes the command starts, and the session they talk to: no `zellij pipe` of
//! the command's outlives it, and a wait ends when the session's server is gone. What a look at
//! the server's socket means is `session`.

use super::session::{self, LiveSession, Look, Watch};
use std::collections::HashSet;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The child ends with this command however the command ends, even by SIGKILL: on Linux the
/// kernel kills it when the thread that spawned it ends (`PR_SET_PDEATHSIG`), which for the
/// command's `zellij pipe` children is the thread that waits for their reply, alive as long as
/// that wait. Elsewhere the child only ends when it is killed or its server answers.
pub fn tied_to_this_process(command: &mut Command) -> &mut Command {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure runs in the child between fork and exec and calls only
        // async-signal-safe functions (prctl, getppid, _exit).
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have ended between the fork and the prctl.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    command
}

/// The child runs in a process group of its own, so that a signal to the command's whole group
/// (Claude Code sends SIGKILL to the hook's group 1.5 s after SIGTERM) does not stop it, and
/// ends by itself after `limit` whatever happens to the command: an alarm set before exec
/// outlives the exec, and SIGALRM ends a process that does not handle it, as `zellij` does not.
pub fn on_its_own_for(command: &mut Command, limit: Duration) -> &mut Command {
    let seconds = u32::try_from(limit.as_secs().max(1)).unwrap_or(u32::MAX);
    command.process_group(0);
    // SAFETY: alarm is async-signal-safe and has no preconditions.
    unsafe {
        command.pre_exec(move || {
            libc::alarm(seconds);
            Ok(())
        });
    }
    command
}

/// Looks at the session's server socket now and then while a caller waits.
pub struct SessionWatch {
    socket: Option<PathBuf>,
    watch: Watch,
    next_look: Instant,
}

impl SessionWatch {
    /// The watch of the session this command runs in (none outside a named session).
    pub fn of_this_session() -> SessionWatch {
        SessionWatch::watching(this_sessions_socket())
    }

    /// The watch of the session named `name`.
    pub fn of_session(name: &str) -> SessionWatch {
        SessionWatch::watching(Some(sockets_dir().join(name)).filter(|_| !name.contains('/')))
    }

    fn watching(socket: Option<PathBuf>) -> SessionWatch {
        SessionWatch {
            socket,
            watch: Watch::default(),
            next_look: Instant::now(),
        }
    }

    /// Looks again if it is time; true once the session's server is gone.
    pub fn gone(&mut self) -> bool {
        let Some(socket) = &self.socket else {
            return false;
        };
        let now = Instant::now();
        if now < self.next_look {
            return self.watch.gone();
        }
        self.next_look = now + Duration::from_millis(session::LOOK_EVERY_MS);
        self.watch.look(look_at(socket))
    }
}

/// Whether the server of the Zellij session this command runs in has its socket on this
/// machine: not for a command in a container or on another machine given
/// `$ZELLIJ_SESSION_NAME`. Yes when there is no session name to look for.
pub fn session_is_here() -> bool {
    match this_sessions_socket() {
        Some(socket) => std::fs::symlink_metadata(socket).is_ok(),
        None => true,
    }
}

/// The name of the session this command runs in, when a session's socket has that name (a
/// session renamed since this command's pane started keeps the old name in
/// `$ZELLIJ_SESSION_NAME`: then None, and Zellij's CLI picks the session itself).
pub fn this_session_by_name() -> Option<String> {
    let socket = this_sessions_socket().filter(|socket| socket.exists())?;
    socket.file_name()?.to_str().map(str::to_owned)
}

/// Where the socket of the session this command runs in is (`$ZELLIJ_SESSION_NAME`'s), there
/// or not; None outside a named session.
fn this_sessions_socket() -> Option<PathBuf> {
    session::socket_path(
        |name| std::env::var(name).ok(),
        this_uid(),
        &std::env::temp_dir(),
        cfg!(target_os = "linux"),
    )
}

/// This user's id.
pub fn this_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// The folder of every Zellij session's socket on this machine.
pub fn sockets_dir() -> PathBuf {
    session::socket_dir(
        |name| std::env::var(name).ok(),
        this_uid(),
        &std::env::temp_dir(),
        cfg!(target_os = "linux"),
    )
}

/// The Zellij sessions whose server runs, by name, each with how many clients its metadata
/// says are attached, whatever the metadata's age: Zellij 0.45.1 looks every second but writes
/// `session-metadata.kdl` only when what it says changed, so an idle session's file keeps an
/// old time. A server runs while it listens on its socket: on Linux, `/proc/net/unix` lists the
/// sockets listened on (`session::listening_paths`), and a session's socket file not listed
/// there is a dead server's. Never by connecting to a listening socket, as `zellij
/// list-sessions` does: Zellij 0.45.1 takes every connection for a client, which attaches and
/// leaves (the plugin's instances hear of it), and one that ends while the server starts makes
/// the server panic. Where `/proc/net/unix` cannot be read (macOS), a socket counts when it was
/// made in the last few seconds (its server starting) or its session's metadata was written
/// lately, and only a session without metadata (`disable_session_metadata`) is connected to.
pub fn live_sessions() -> Vec<LiveSession> {
    let Ok(entries) = std::fs::read_dir(sockets_dir()) else {
        return Vec::new();
    };
    let listening = listening_now();
    let mut live: Vec<LiveSession> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_socket()))
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_owned();
            let socket = e.path();
            let metadata = metadata_of(&name);
            let runs = match &listening {
                Some(listening) => look_at_among(listening, &socket) == Look::Listening,
                None => {
                    age(&socket).is_some_and(|age| age < STARTING)
                        || match &metadata {
                            Some((age, _)) => *age < FRESH,
                            None => connect_to(&socket) == Look::Listening,
                        }
                }
            };
            let clients = metadata.and_then(|(_, text)| session::connected_clients(&text));
            runs.then_some(LiveSession { name, clients })
        })
        .collect();
    live.sort_by(|a, b| a.name.cmp(&b.name));
    live
}

/// The sockets listened on now (`/proc/net/unix`); None where that cannot be read.
fn listening_now() -> Option<HashSet<PathBuf>> {
    std::fs::read_to_string(session::PROC_NET_UNIX)
        .ok()
        .map(|table| session::listening_paths(&table))
}

/// The session `name`'s metadata as Zellij last wrote it, and how long ago.
fn metadata_of(name: &str) -> Option<(Duration, String)> {
    let dir = session::session_info_dir(|name| std::env::var(name).ok())?;
    let path = dir.join(name).join("session-metadata.kdl");
    let age = age(&path)?;
    Some((age, std::fs::read_to_string(path).ok()?))
}

/// How long ago the file at `path` was last written.
fn age(path: &Path) -> Option<Duration> {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|written| written.elapsed().ok())
}

/// How long after its socket appears a Zellij server may still be starting, and how old its
/// session's metadata may be while it runs.
const STARTING: Duration = Duration::from_secs(3);
const FRESH: Duration = Duration::from_secs(5);

/// One look at a session's socket: listed as listened on (`/proc/net/unix`), it is a server's,
/// and is not connected to; elsewhere, connecting is what `zellij list-sessions` does to tell a
/// live session from a dead one (the connection is closed at once, as a CLI client's is).
fn look_at(socket: &Path) -> Look {
    match listening_now() {
        Some(listening) => look_at_among(&listening, socket),
        None => connect_to(socket),
    }
}

/// `look_at`, with the sockets listened on in hand. A socket file not among them is connected
/// to, which no server of this machine takes (nobody listens on it); one listened on in
/// another network namespace (a container's) answers so.
fn look_at_among(listening: &HashSet<PathBuf>, socket: &Path) -> Look {
    if session::is_listening(listening, socket) {
        Look::Listening
    } else {
        connect_to(socket)
    }
}

/// Connects to the socket and closes the connection at once.
fn connect_to(socket: &Path) -> Look {
    match std::os::unix::net::UnixStream::connect(socket) {
        Ok(_) => Look::Listening,
        Err(e) => match e.kind() {
            std::io::ErrorKind::ConnectionRefused => Look::Refused,
            std::io::ErrorKind::NotFound => Look::Missing,
            _ => Look::Unknown,
        },
    }
}
