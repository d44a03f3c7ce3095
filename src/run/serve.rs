//! `ask-popup serve`, and the caller's side of its socket: questions from where no Zellij
//! session is reachable (a container, another machine over `ssh -R`) asked in the session the
//! person is attached to. The wire and the choices are `ask_popup::relay`.

use super::children::{live_sessions, this_uid};
use super::{Stop, Zellij, POLL};
use ask_popup::ask::{self, Caller};
use ask_popup::relay::{self, Frame};
use ask_popup_protocol::envelope::{self, ErrorCode};
use std::io::{BufReader, Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

/// How long a caller may take to send its frame.
const FRAME_WITHIN: Duration = Duration::from_secs(10);

/// The socket this user's callers and server use (`relay::socket_path`).
pub(super) fn socket_path() -> PathBuf {
    relay::socket_path(
        |name| std::env::var(name).ok(),
        this_uid(),
        &std::env::temp_dir(),
    )
}

/// `ask-popup serve`: listens until stopped (SIGINT, SIGTERM, SIGHUP), asking each question
/// that comes in the session the person is attached to. Started on demand (`on_demand`), it
/// says nothing, leaves the socket to a server already there, and ends once no Zellij session
/// has been left for `IDLE_LOOKS` looks in a row.
pub(super) fn serve(plugin: &str, on_demand: bool) -> i32 {
    let path = socket_path();
    let (listener, _lock) = match listen(&path) {
        Ok(listening) => listening,
        Err(_) if on_demand => return 0,
        Err(e) => {
            say_err!("ask-popup serve: cannot listen on {}: {e}", path.display());
            return 1;
        }
    };
    if on_demand {
        let path = path.clone();
        thread::spawn(move || {
            let mut idle = 0;
            loop {
                thread::sleep(IDLE_LOOK);
                idle = if live_sessions().is_empty() {
                    idle + 1
                } else {
                    0
                };
                if idle >= IDLE_LOOKS {
                    let _ = std::fs::remove_file(&path);
                    std::process::exit(0);
                }
            }
        });
    } else {
        say_err!("ask-popup serve: listening on {}", path.display());
    }
    {
        let path = path.clone();
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            thread::spawn(move || {
                if signals.forever().next().is_some() {
                    let _ = std::fs::remove_file(&path);
                    std::process::exit(0);
                }
            });
        }
    }
    let this_host = host_name();
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let plugin = plugin.to_owned();
        let this_host = this_host.clone();
        thread::spawn(move || answer_connection(stream, &plugin, this_host.as_deref()));
    }
    0
}

/// Binds the socket, readable and writable by this user alone; a socket left by a server that
/// ended is replaced, one that answers is not. The server holds a lock beside it (`.lock`)
/// while it runs, so that two started at once do not take the path from each other.
fn listen(path: &Path) -> std::io::Result<(UnixListener, std::fs::File)> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent() {
        if !dir.exists() {
            std::fs::create_dir_all(dir)?;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
    }
    let mut lock_path = path.as_os_str().to_owned();
    lock_path.push(".lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&lock_path)?;
    // SAFETY: flock on a file descriptor this function owns.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(std::io::Error::other(
            "another ask-popup serve listens there",
        ));
    }
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(std::io::Error::other(
                "a file that is not a socket is there",
            ));
        }
        if UnixStream::connect(path).is_ok() {
            return Err(std::io::Error::other(
                "another ask-popup serve listens there",
            ));
        }
        std::fs::remove_file(path)?;
    }
    // SAFETY: umask has no preconditions; the socket is made 0600 from the start.
    let old = unsafe { libc::umask(0o177) };
    let listener = UnixListener::bind(path);
    // SAFETY: as above.
    unsafe { libc::umask(old) };
    let listener = listener?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok((listener, lock))
}

/// Between two looks for a live Zellij session of a server started on demand, and how many
/// looks without one end it.
const IDLE_LOOK: Duration = Duration::from_secs(5);
const IDLE_LOOKS: u32 = 12;

/// Starts `ask-popup serve --on-demand` when no server answers on the socket, on a thread of
/// its own (the question is not held up), unless `$ASK_POPUP_SERVE` is `off`. It outlives this
/// command, in a process group of its own.
pub(super) fn start_on_demand(plugin: &str) {
    let off = std::env::var("ASK_POPUP_SERVE")
        .is_ok_and(|v| matches!(v.trim(), "off" | "0" | "false" | "no"));
    if off {
        return;
    }
    let plugin = plugin.to_owned();
    thread::spawn(move || {
        if UnixStream::connect(socket_path()).is_ok() {
            return;
        }
        let mut command = std::process::Command::new(super::exe());
        // Not the asking pane's: it serves the whole machine, from no folder in particular.
        command
            .args(["serve", "--on-demand", "--plugin", &plugin])
            .env_remove("ZELLIJ_PANE_ID")
            .current_dir("/")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        if let Ok(mut child) = command.spawn() {
            // Reaped by whoever adopts it once this command ends; until then, here.
            thread::spawn(move || child.wait());
        }
    });
}

/// One caller: its frame read, its question asked, its envelope written; the question is
/// withdrawn when the caller hangs up first.
fn answer_connection(stream: UnixStream, plugin: &str, this_host: Option<&str>) {
    let _ = stream.set_read_timeout(Some(FRAME_WITHIN));
    let frame = relay::read_frame(BufReader::new(&stream));
    let _ = stream.set_read_timeout(None);
    let reply = match frame {
        Err(error) => envelope::rejection(&error, None),
        Ok(frame) => ask_frame(frame, plugin, this_host, &HangUp(&stream)),
    };
    let mut stream = &stream;
    let _ = stream.write_all(reply.as_bytes());
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// The envelope for one frame: asked in the session `relay::pick_session` picks.
fn ask_frame(mut frame: Frame, plugin: &str, this_host: Option<&str>, stop: &dyn Stop) -> String {
    let live = live_sessions();
    let own = std::env::var("ZELLIJ_SESSION_NAME").ok();
    let session = relay::pick_session(frame.session.as_deref(), own.as_deref(), &live);
    if session.is_none() || frame.session != session {
        // A pane id means nothing in another session.
        frame.pane_id = None;
    }
    let caller = frame.caller(this_host);
    let line = match ask::prepare(frame.questionnaire.as_bytes(), &caller) {
        Ok(line) => line,
        Err(error) => return caller.rejection(&error),
    };
    let Some(session) = session else {
        return caller.failure(ErrorCode::NoUi);
    };
    match Zellij::of_session(plugin, &session) {
        Ok(zellij) => zellij.ask(&caller, &line, stop),
        Err(code) => caller.failure(code),
    }
}

/// The caller hanging up: its end of the socket closed.
struct HangUp<'a>(&'a UnixStream);

impl Stop for HangUp<'_> {
    fn wait(&self, limit: Duration) -> bool {
        let mut poll = libc::pollfd {
            fd: self.0.as_raw_fd(),
            events: libc::POLLIN | libc::POLLRDHUP,
            revents: 0,
        };
        let ms = libc::c_int::try_from(limit.as_millis()).unwrap_or(libc::c_int::MAX);
        // SAFETY: one valid pollfd, for the duration of the call.
        let n = unsafe { libc::poll(&mut poll, 1, ms) };
        if n <= 0 {
            if n < 0 {
                thread::sleep(limit);
            }
            return false;
        }
        if poll.revents & (libc::POLLHUP | libc::POLLRDHUP | libc::POLLERR) != 0 {
            return true;
        }
        // Bytes after the frame mean nothing; an end of input is a hang-up.
        let mut chunk = [0u8; 4096];
        let _ = self.0.set_nonblocking(true);
        let read = (&mut &*self.0).read(&mut chunk);
        let _ = self.0.set_nonblocking(false);
        matches!(read, Ok(0))
    }
}

/// Asks through `ask-popup serve`'s socket, for a caller where no Zellij session is reachable:
/// None when there is no socket to ask through (`$ASK_POPUP_SOCKET` unset and no socket at the
/// default path, or nobody listening), so the caller gets `no_ui`.
pub(super) fn ask_through_socket(caller: &Caller, line: &str, stop: &dyn Stop) -> Option<String> {
    let path = socket_path();
    let stream = UnixStream::connect(&path).ok()?;
    let frame = Frame {
        agent: caller.agent.clone(),
        id: caller.id.clone(),
        id_given: caller.id_given,
        pane_id: caller.pane_id.clone(),
        session: std::env::var("ZELLIJ_SESSION_NAME")
            .ok()
            .filter(|s| !s.is_empty()),
        host: host_name(),
        approval_by: caller.approval_by.clone(),
        questionnaire: line.to_owned(),
    };
    if (&stream).write_all(frame.line().as_bytes()).is_err() {
        return Some(caller.failure(ErrorCode::NoReply));
    }
    super::notify::tell_terminal(caller, line);
    let (tx, rx) = mpsc::channel();
    let reader = stream.try_clone().ok()?;
    thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&reader)
            .take(relay::MAX_FRAME_BYTES as u64)
            .read_to_end(&mut out);
        let _ = tx.send(out);
    });
    loop {
        match rx.recv_timeout(POLL) {
            Ok(out) => {
                // The connection is this question's alone: its one envelope is the reply,
                // the server's own failures (which echo only an id the caller chose) too.
                let text = String::from_utf8_lossy(&out);
                return Some(
                    text.lines()
                        .find(|line| envelope::Envelope::read(line).is_some())
                        .map(|line| format!("{line}\n"))
                        .unwrap_or_else(|| caller.failure(ErrorCode::NoReply)),
                );
            }
            Err(RecvTimeoutError::Disconnected) => return Some(caller.failure(ErrorCode::NoReply)),
            Err(RecvTimeoutError::Timeout) => {}
        }
        if stop.wait(Duration::ZERO) {
            // The server withdraws the question when the connection ends.
            let _ = stream.shutdown(std::net::Shutdown::Both);
            return Some(caller.failure(ErrorCode::Aborted));
        }
    }
}

/// This machine's name as the popup shows it: `$ASK_POPUP_HOST` (a container's host name is
/// often a random one), else the host name.
fn host_name() -> Option<String> {
    if let Some(name) = std::env::var("ASK_POPUP_HOST")
        .ok()
        .filter(|n| !n.is_empty())
    {
        return Some(name);
    }
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes at most that.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return None;
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(buf.get(..end)?).trim().to_owned();
    (!name.is_empty()).then_some(name)
}
