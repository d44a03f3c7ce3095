//! The `zellij` processes the command starts, and the session they talk to: no `zellij pipe` of
//! the command's outlives it, and a wait ends when the session's server is gone. What a look at
//! the server's socket means is `ask_popup::session`.

use ask_popup::session::{self, Look, Watch};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
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
        // SAFETY: getuid has no preconditions.
        let uid = unsafe { libc::getuid() };
        let socket = session::socket_path(
            |name| std::env::var(name).ok(),
            uid,
            &std::env::temp_dir(),
            cfg!(target_os = "linux"),
        );
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

/// One look: connecting is what `zellij list-sessions` does to tell a live session from a dead
/// one; the connection is closed at once, as a CLI client's is.
fn look_at(socket: &std::path::Path) -> Look {
    match std::os::unix::net::UnixStream::connect(socket) {
        Ok(_) => Look::Listening,
        Err(e) => match e.kind() {
            std::io::ErrorKind::ConnectionRefused => Look::Refused,
            std::io::ErrorKind::NotFound => Look::Missing,
            _ => Look::Unknown,
        },
    }
}
