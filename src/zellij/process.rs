//! Child processes the command waits on: one run for at most a while, and a child's stdout read
//! on a thread of its own (for a question, handed over as soon as it holds the reply).

use super::programs::missed_session;
use crate::ask;
use std::io::Read;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

/// How often a waiting command looks at its child and its parent.
pub const POLL: Duration = Duration::from_millis(50);

/// Runs a `zellij pipe` command with `payload` as its argument and no stdin, for at most
/// `limit`: whether it exited 0, and its stdout. None when it did not end within `limit`, or
/// missed the session (`missed_session`: it sent nothing, and may have exited 0 listing the
/// other sessions on stdout).
pub fn run(mut command: Command, payload: &str, limit: Duration) -> Option<(bool, Vec<u8>)> {
    command.args(["--", payload]);
    let out = run_for_output(command, limit)?;
    (!missed_session(&out.stderr)).then(|| (out.status.success(), out.stdout))
}

/// Runs a command with no stdin for at most `limit` (then kills it): whether it exited 0, and
/// its stdout.
pub fn run_for(command: Command, limit: Duration) -> Option<(bool, Vec<u8>)> {
    run_keeping(command, limit, false).map(|out| (out.status.success(), out.stdout))
}

/// `run_for`, keeping its stderr too (a `zellij` call that missed its session says so there).
pub fn run_for_output(command: Command, limit: Duration) -> Option<Output> {
    run_keeping(command, limit, true)
}

fn run_keeping(mut command: Command, limit: Duration, stderr: bool) -> Option<Output> {
    if stderr {
        command.stderr(Stdio::piped());
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let stdout = read_in_background(child.stdout.take());
    let stderr = read_in_background(child.stderr.take());
    let until = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => thread::sleep(POLL),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    Some(Output {
        status,
        stdout: stdout.recv().unwrap_or_default(),
        stderr: stderr.recv().unwrap_or_default(),
    })
}

/// Reads a `zellij pipe` child's stdout on a thread of its own, and sends what it printed as
/// soon as that holds the reply to the question `id`, or at its end when it never does. The
/// question is answered when the reply comes, not when the child is next seen to have exited.
pub fn reply_in_background(child: &mut Child, id: &str) -> Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take();
    let id = id.to_owned();
    thread::spawn(move || {
        let mut out = Vec::new();
        let mut sent = false;
        if let Some(mut stdout) = stdout {
            let mut chunk = [0u8; 64 * 1024];
            loop {
                match stdout.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        let Some(read) = chunk.get(..n) else { break };
                        if sent {
                            // Read on to the end, so the child never blocks on a full pipe.
                            continue;
                        }
                        out.extend_from_slice(read);
                        if read.contains(&b'\n') && ask::reply_in(&out, &id).is_some() {
                            sent = tx.send(std::mem::take(&mut out)).is_ok();
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        }
        if !sent {
            let _ = tx.send(out);
        }
    });
    rx
}

/// Reads a child's pipe (its stdout or stderr; nothing when it has none) to its end on a thread
/// of its own.
fn read_in_background(pipe: Option<impl Read + Send + 'static>) -> Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut out);
        }
        let _ = tx.send(out);
    });
    rx
}

/// This process's parent's id (1, or a subreaper's, once the parent has ended).
pub fn parent_pid() -> i32 {
    rustix::process::Pid::as_raw(rustix::process::getppid())
}

/// Whether process `pid` exists (signal 0: one of another user's counts too).
pub fn exists(pid: u32) -> bool {
    matches!(
        signal_zero(pid),
        Some(Ok(())) | Some(Err(rustix::io::Errno::PERM))
    )
}

/// Whether process `pid` runs and is this user's to signal (another user's, which took the pid
/// of one that ended, is not).
pub fn runs_as_ours(pid: u32) -> bool {
    matches!(signal_zero(pid), Some(Ok(())))
}

/// Signal 0 sent to `pid`: whether it exists and may be signalled (None: no such pid can be).
fn signal_zero(pid: u32) -> Option<rustix::io::Result<()>> {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)?;
    Some(rustix::process::test_kill_process(pid))
}
