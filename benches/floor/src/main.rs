//! The floor of `benches/e2e_latency.py`: the least a plugin can do to answer `zellij pipe`.
//!
//! A CLI pipe shows the pane (`show_self`), blocks the pipe and renders one line: a fixed
//! marker, how many keys were pressed, and the payload's first 40 characters. Any key but Enter
//! counts; Enter replies with a JSON line, unblocks the pipe and hides the pane. The reply is
//! as many bytes as the pipe's `reply_bytes` argument says (its newline included), so that the
//! floor answers what ask-popup answers the same question, byte for byte in size; without the
//! argument it is the shortest line.

use std::collections::{BTreeMap, VecDeque};
use zellij_tile::prelude::*;

const REPLY: &str =
    "{\"content\":[{\"type\":\"text\",\"text\":\"floor\"}],\"details\":{\"cancelled\":false}}\n";

/// The reply, padded to `bytes` (a `pad` field of words, like an envelope's text).
fn reply(bytes: usize) -> String {
    const OPEN: &str =
        "{\"content\":[{\"type\":\"text\",\"text\":\"floor\"}],\"details\":{\"cancelled\":false,\"pad\":\"";
    const CLOSE: &str = "\"}}\n";
    let room = bytes.saturating_sub(OPEN.len() + CLOSE.len());
    if room == 0 {
        return REPLY.to_owned();
    }
    let pad: String = "floor reply ".chars().cycle().take(room).collect();
    format!("{OPEN}{pad}{CLOSE}")
}

#[derive(Default)]
struct Floor {
    granted: bool,
    /// Pipe messages that arrived before the permission answer.
    held: Vec<PipeMessage>,
    /// Blocked CLI pipes (id, payload's first 40 characters, reply size); the front one is
    /// shown.
    pending: VecDeque<(String, String, usize)>,
    keys: usize,
}

register_plugin!(Floor);

impl ZellijPlugin for Floor {
    fn load(&mut self, _configuration: BTreeMap<String, String>) {
        request_permission(&[
            PermissionType::ReadCliPipes,
            PermissionType::ChangeApplicationState,
        ]);
        subscribe(&[EventType::PermissionRequestResult, EventType::Key]);
    }

    fn update(&mut self, event: Event) -> bool {
        match event {
            Event::PermissionRequestResult(_) => {
                self.granted = true;
                let mut render = false;
                for msg in std::mem::take(&mut self.held) {
                    render |= self.pipe(msg);
                }
                render
            }
            Event::Key(key) if !self.pending.is_empty() => {
                if key.bare_key == BareKey::Enter && key.key_modifiers.is_empty() {
                    if let Some((pipe, _, bytes)) = self.pending.pop_front() {
                        cli_pipe_output(&pipe, &reply(bytes));
                        unblock_cli_pipe_input(&pipe);
                    }
                    self.keys = 0;
                    if self.pending.is_empty() {
                        hide_self();
                    }
                } else {
                    self.keys += 1;
                }
                true
            }
            _ => false,
        }
    }

    fn pipe(&mut self, msg: PipeMessage) -> bool {
        let PipeSource::Cli(pipe) = &msg.source else {
            return false;
        };
        if !self.granted {
            block_cli_pipe_input(pipe);
            self.held.push(msg);
            return false;
        }
        // The end-of-input message (no payload) that follows an answered pipe is not a request.
        let Some(payload) = &msg.payload else {
            return false;
        };
        block_cli_pipe_input(pipe);
        let bytes = msg
            .args
            .get("reply_bytes")
            .and_then(|b| b.parse().ok())
            .unwrap_or(0);
        self.pending
            .push_back((pipe.clone(), payload.chars().take(40).collect(), bytes));
        show_self(true);
        true
    }

    fn render(&mut self, _rows: usize, cols: usize) {
        let line = match self.pending.front() {
            Some((_, head, _)) => format!("FLOOR keys={} | {head}", self.keys),
            None => "FLOOR idle".to_owned(),
        };
        println!("{}", line.chars().take(cols).collect::<String>());
    }
}
