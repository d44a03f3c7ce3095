//! The caller's side of `ask-popup serve`'s socket: `ask-popup ask` (and the hooks) where no
//! Zellij session is reachable send the questionnaire through it and take back only the
//! envelope of their own question, from a socket and a listener they trust.

use super::socket::{host_name, owned, peer_uid, socket_path, trust};
use super::wire::{self, Frame, Untrusted};
use crate::ask::stop::Stop;
use crate::ask::Caller;
use crate::zellij::process::POLL;
use ask_popup_protocol::envelope::ErrorCode;
use std::io::{Read, Write};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

/// Asks through `ask-popup serve`'s socket, for a caller where no Zellij session is reachable:
/// None when there is no socket to ask through (`$ASK_POPUP_SOCKET` unset and no socket at the
/// default path, nobody listening, or one this user does not trust: said on stderr), so the
/// caller gets `no_ui`.
pub fn ask_through_socket(caller: &Caller, line: &str, stop: &dyn Stop) -> Option<String> {
    let path = socket_path();
    let trust = trust();
    let untrusted = |why: Untrusted| {
        say_err!("ask-popup: not asking through {}: {why}", path.display());
    };
    // Looked at before connecting: what a caller sends (its commands, its diffs) goes only to
    // a socket nobody else could have put there…
    let socket = std::fs::symlink_metadata(&path).ok()?;
    let folder = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let folder = std::fs::metadata(folder).ok()?;
    if let Err(why) = wire::check_socket(
        owned(&socket),
        socket.file_type().is_socket(),
        owned(&folder),
        &trust,
    ) {
        untrusted(why);
        return None;
    }
    let stream = UnixStream::connect(&path).ok()?;
    // …and to a listener of this user's: the credentials of the connection, not the file,
    // say who listens.
    match peer_uid(&stream).map(|uid| wire::check_listener(uid, &trust)) {
        Ok(Ok(())) => {}
        Ok(Err(why)) => {
            untrusted(why);
            return None;
        }
        Err(_) => return None,
    }
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
    crate::notify::notice::tell_terminal(caller, line);
    let (tx, rx) = mpsc::channel();
    let reader = stream.try_clone().ok()?;
    let reading = thread::Builder::new()
        .name("socket".to_owned())
        .spawn(move || {
            let mut out = Vec::new();
            let _ = (&reader)
                .take(wire::MAX_FRAME_BYTES as u64)
                .read_to_end(&mut out);
            let _ = tx.send(out);
        });
    if reading.is_err() {
        return Some(caller.failure(ErrorCode::NoReply));
    }
    loop {
        match rx.recv_timeout(POLL) {
            Ok(out) => {
                // The connection is this question's alone: its envelope is the reply when it
                // is this question's (or the server's own failure); another request's answer
                // is never taken for it.
                return Some(
                    wire::reply_for(&out, &caller.id)
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
