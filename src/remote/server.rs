//! `ask-popup serve`, and the caller's side of its socket: questions from where no Zellij
//! session is reachable (a container, another machine over `ssh -R`) asked in the session the
//! person is attached to. The wire is `wire`, the session picked `inbox::routes`.

use super::socket::{host_name, own_folder, peer_uid, socket_path, trust};
use super::wire::{self, Frame};
use crate::ask::stop::Stop;
use crate::ask::{self};
use crate::zellij::children::live_sessions;
use crate::zellij::pipe::Zellij;
use crate::zellij::process::POLL;
use ask_popup_protocol::envelope::{self, Envelope, ErrorCode};
use std::io::{BufReader, Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// How long a caller may take to send its whole frame.
const FRAME_WITHIN: Duration = Duration::from_secs(10);
/// How many callers `serve` answers at once; the next gets `busy`. Each waits on a thread of
/// its own (its `zellij pipe` is tied to that thread), and far fewer questions than this fit
/// in a popup anyone answers.
pub const MAX_CONNECTIONS: usize = 64;
/// How long a stopping `serve` waits for the questions in flight to be taken back (each
/// `cancel` pipe may take `PIPE_TIMEOUT`, and is sent up to three times).
const WITHDRAW_WITHIN: Duration = Duration::from_secs(35);

/// `ask-popup serve`: listens until stopped (SIGINT, SIGTERM, SIGHUP), asking each question
/// that comes in the session the person is attached to. Started on demand (`on_demand`), it
/// says nothing, leaves the socket to a server already there, and ends once no Zellij session
/// has been left for `IDLE_LOOKS` looks in a row.
pub fn serve(plugin: &str, on_demand: bool) -> i32 {
    let path = socket_path();
    let (listener, _lock) = match listen(&path) {
        Ok(listening) => listening,
        Err(_) if on_demand => return 0,
        Err(e) => {
            say_err!("ask-popup serve: cannot listen on {}: {e}", path.display());
            return 1;
        }
    };
    let serving = Arc::new(Serving::default());
    if on_demand {
        let (path, serving) = (path.clone(), Arc::clone(&serving));
        let watching = thread::Builder::new()
            .name("idle".to_owned())
            .spawn(move || {
                let mut idle = 0;
                loop {
                    thread::sleep(IDLE_LOOK);
                    idle = if live_sessions().is_empty() {
                        idle + 1
                    } else {
                        0
                    };
                    if idle >= IDLE_LOOKS {
                        serving.leave(&path, || false);
                    }
                }
            });
        if watching.is_err() {
            return 0;
        }
    } else {
        say_err!("ask-popup serve: listening on {}", path.display());
    }
    {
        let (socket, serving) = (path.clone(), Arc::clone(&serving));
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]);
        let stopping = signals.and_then(|mut signals| {
            thread::Builder::new()
                .name("signals".to_owned())
                .spawn(move || {
                    if signals.forever().next().is_some() {
                        // A second signal while the questions are taken back ends it at once.
                        serving.leave(&socket, || signals.pending().next().is_some());
                    }
                })
        });
        if let Err(e) = stopping {
            say_err!("ask-popup serve: cannot watch for signals: {e}");
            let _ = std::fs::remove_file(&path);
            return 1;
        }
    }
    let this_host = host_name();
    let trust = trust();
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(stream) => stream,
            Err(_) => {
                // Out of file descriptors, say: a moment for connections to end, not a spin.
                thread::sleep(POLL);
                continue;
            }
        };
        match peer_uid(&stream) {
            Ok(uid) if wire::serves(uid, &trust) => {}
            Ok(uid) => {
                if !on_demand {
                    say_err!(
                        "ask-popup serve: refused a caller of uid {uid} (${} names a uid to trust)",
                        wire::TRUST_ENV
                    );
                }
                continue;
            }
            Err(_) => continue,
        }
        let Some(slot) = Slot::take(&serving) else {
            refuse_busy(&stream);
            continue;
        };
        let spare = stream.try_clone();
        let plugin = plugin.to_owned();
        let this_host = this_host.clone();
        let spawned = thread::Builder::new()
            .name("caller".to_owned())
            .spawn(move || {
                answer_connection(&stream, &plugin, this_host.as_deref(), &slot.0);
                drop(slot);
            });
        if spawned.is_err() {
            // No thread for it (the slot went back with the closure): the caller hears busy.
            if let Ok(stream) = spare {
                refuse_busy(&stream);
            }
        }
    }
    0
}

/// What the connections share: whether the server is stopping, and how many are open.
#[derive(Default)]
struct Serving {
    stopping: AtomicBool,
    open: Mutex<usize>,
    closed: Condvar,
}

impl Serving {
    fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Ends the server: every question in flight is taken back from the popup (its caller
    /// hears `no_reply`), for at most `WITHDRAW_WITHIN` or until `now` says not to wait; then
    /// the socket is removed and the process exits.
    fn leave(&self, path: &Path, mut now: impl FnMut() -> bool) -> ! {
        self.stopping.store(true, Ordering::SeqCst);
        let until = Instant::now() + WITHDRAW_WITHIN;
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        while *open > 0 && Instant::now() < until && !now() {
            open = self
                .closed
                .wait_timeout(open, POLL)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        let _ = std::fs::remove_file(path);
        std::process::exit(0)
    }
}

/// One open connection's place among the `MAX_CONNECTIONS`, given back when dropped.
struct Slot(Arc<Serving>);

impl Slot {
    fn take(serving: &Arc<Serving>) -> Option<Slot> {
        let mut open = serving.open.lock().unwrap_or_else(PoisonError::into_inner);
        if *open >= MAX_CONNECTIONS {
            return None;
        }
        *open += 1;
        Some(Slot(Arc::clone(serving)))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.0.open.lock().unwrap_or_else(PoisonError::into_inner);
        *open = open.saturating_sub(1);
        self.0.closed.notify_all();
    }
}

/// Tells a caller there is no room for it (`busy`, the request unread) without waiting on it:
/// the envelope fits in a fresh connection's buffer.
fn refuse_busy(stream: &UnixStream) {
    let _ = stream.set_nonblocking(true);
    let _ = (&mut &*stream).write_all(envelope::host_error(ErrorCode::Busy, None).as_bytes());
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Binds the socket, readable and writable by this user alone, in a folder of this user's
/// that nobody else can write and that is no symbolic link (`socket::own_folder`: made, 0700,
/// when missing; nothing above it is made); a socket left by a server that ended is replaced,
/// one that answers is not. The server holds a lock beside it (`.lock`, never followed through
/// a symlink) while it runs, so that two started at once do not take the path from each other.
fn listen(path: &Path) -> std::io::Result<(UnixListener, std::fs::File)> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    own_folder(dir, true)
        .map_err(|e| std::io::Error::other(format!("its folder {}: {e}", dir.display())))?;
    let mut lock_path = path.as_os_str().to_owned();
    lock_path.push(".lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&lock_path)?;
    if lock.try_lock().is_err() {
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
    // The socket is made 0600 from the start.
    let old = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o177));
    let listener = UnixListener::bind(path);
    rustix::process::umask(old);
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
pub fn start_on_demand(plugin: &str) {
    let off = std::env::var("ASK_POPUP_SERVE")
        .is_ok_and(|v| matches!(v.trim(), "off" | "0" | "false" | "no"));
    if off {
        return;
    }
    let plugin = plugin.to_owned();
    let _ = thread::Builder::new()
        .name("serve".to_owned())
        .spawn(move || {
            if UnixStream::connect(socket_path()).is_ok() {
                return;
            }
            let mut command = std::process::Command::new(crate::zellij::programs::exe());
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
                let _ = thread::Builder::new().spawn(move || child.wait());
            }
        });
}

/// One caller: its frame read (within `FRAME_WITHIN`, however it trickles in), its question
/// asked, its envelope written; the question is withdrawn when the caller hangs up first, or
/// the server stops (then the caller hears `no_reply`).
fn answer_connection(
    stream: &UnixStream,
    plugin: &str,
    this_host: Option<&str>,
    serving: &Serving,
) {
    let frame = wire::read_frame(BufReader::new(FrameReader {
        stream,
        until: Instant::now() + FRAME_WITHIN,
    }));
    let _ = stream.set_read_timeout(None);
    let reply = match frame {
        Err(error) => envelope::rejection(&error, None),
        Ok(frame) => {
            let hang_up = HangUp {
                stream,
                serving,
                input_ended: AtomicBool::new(false),
            };
            ask_frame(frame, plugin, this_host, &hang_up)
        }
    };
    let mut stream = stream;
    let _ = stream.write_all(reply.as_bytes());
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// A connection read until one deadline for the whole frame: each read waits only for what is
/// left of it.
struct FrameReader<'a> {
    stream: &'a UnixStream,
    until: Instant,
}

impl Read for FrameReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let late = || {
            std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "the request did not come within {} s",
                    FRAME_WITHIN.as_secs()
                ),
            )
        };
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(late());
        }
        self.stream.set_read_timeout(Some(left))?;
        match (&mut &*self.stream).read(buf) {
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                Err(late())
            }
            read => read,
        }
    }
}

/// The envelope for one frame: asked in the session `routes::pick_session` picks.
fn ask_frame(mut frame: Frame, plugin: &str, this_host: Option<&str>, stop: &HangUp) -> String {
    let live = live_sessions();
    let own = std::env::var("ZELLIJ_SESSION_NAME").ok();
    let session =
        crate::inbox::routes::pick_session(frame.session.as_deref(), own.as_deref(), &live);
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
    if stop.serving.stopping() {
        return caller.failure(ErrorCode::NoReply);
    }
    let envelope = match Zellij::of_session(plugin, &session) {
        Ok(zellij) => zellij.ask(&caller, &line, stop),
        Err(code) => caller.failure(code),
    };
    let withdrawn =
        Envelope::read(&envelope).is_some_and(|e| e.error() == Some(Ok(ErrorCode::Aborted)));
    if withdrawn && stop.serving.stopping() {
        // Taken back because the server stops, not because the caller went: the caller
        // asks elsewhere.
        return caller.failure(ErrorCode::NoReply);
    }
    envelope
}

/// The caller hanging up (its end of the socket closed; shutting down only its writing half,
/// as `socat -` and `nc -N` do after the frame, is not hanging up), or the server stopping.
struct HangUp<'a> {
    stream: &'a UnixStream,
    serving: &'a Serving,
    /// The caller's writing half is closed: only a full close is looked for from then on.
    input_ended: AtomicBool,
}

impl Stop for HangUp<'_> {
    fn wait(&self, limit: Duration) -> bool {
        if self.serving.stopping() {
            return true;
        }
        // Short, so that a stopping server is heard within a poll.
        let limit = limit.min(POLL);
        let ended = self.input_ended.load(Ordering::SeqCst);
        use rustix::event::{PollFd, PollFlags, Timespec};
        // POLLHUP and POLLERR come whatever is asked for.
        let asked = if ended {
            PollFlags::empty()
        } else {
            PollFlags::IN
        };
        let mut fds = [PollFd::new(self.stream, asked)];
        let timeout = Timespec::try_from(limit).unwrap_or(Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        });
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(0) => return self.serving.stopping(),
            Err(_) => {
                thread::sleep(limit);
                return self.serving.stopping();
            }
            Ok(_) => {}
        }
        let revents = fds[0].revents();
        if revents.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL) {
            return true;
        }
        if revents.contains(PollFlags::IN) {
            // Bytes after the frame mean nothing; the end of them is the writing half closed.
            let mut chunk = [0u8; 4096];
            let _ = self.stream.set_nonblocking(true);
            let read = (&mut &*self.stream).read(&mut chunk);
            let _ = self.stream.set_nonblocking(false);
            if matches!(read, Ok(0)) {
                self.input_ended.store(true, Ordering::SeqCst);
            }
        }
        self.serving.stopping()
    }
}
