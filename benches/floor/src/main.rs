//! The floor of `benches/e2e_latency.py`: the least a plugin can do to answer `zellij pipe`.
//!
//! A CLI pipe shows the pane (`show_self`), blocks the pipe and renders one line: a fixed
//! marker, how many keys were pressed, and the payload's first 40 characters. Any key but Enter
//! counts; Enter replies with a fixed JSON line, unblocks the pipe and hides the pane.

use std::collections::{BTreeMap, VecDeque};
use zellij_tile::prelude::*;

const REPLY: &str =
    "{\"content\":[{\"type\":\"text\",\"text\":\"floor\"}],\"details\":{\"cancelled\":false}}\n";

#[derive(Default)]
struct Floor {
    granted: bool,
    /// Pipe messages that arrived before the permission answer.
    held: Vec<PipeMessage>,
    /// Blocked CLI pipes (id, payload's first 40 characters); the front one is shown.
    pending: VecDeque<(String, String)>,
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
                    if let Some((pipe, _)) = self.pending.pop_front() {
                        cli_pipe_output(&pipe, REPLY);
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
        self.pending
            .push_back((pipe.clone(), payload.chars().take(40).collect()));
        show_self(true);
        true
    }

    fn render(&mut self, _rows: usize, cols: usize) {
        let line = match self.pending.front() {
            Some((_, head)) => format!("FLOOR keys={} | {head}", self.keys),
            None => "FLOOR idle".to_owned(),
        };
        println!("{}", line.chars().take(cols).collect::<String>());
    }
}
