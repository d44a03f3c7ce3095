//! A listener plugin for ask-popup's e2e tests. It records every pipe message it hears whose
//! name starts with `ask-popup:` or `herdr:` (what another plugin or a status bar would react
//! to) and answers a CLI pipe named `heard` with the list, as JSON:
//! `[{"name":"ask-popup:blocked","payload":"{…}"}, …]`.
//!
//! It hides its own pane, so it never covers the popup on screen.

use std::collections::BTreeMap;
use zellij_tile::prelude::*;

#[derive(Default)]
struct State {
    granted: bool,
    /// CLI pipes that arrived before the permission answer, answered once it came.
    held: Vec<String>,
    heard: Vec<serde_json::Value>,
}

register_plugin!(State);

impl ZellijPlugin for State {
    fn load(&mut self, _configuration: BTreeMap<String, String>) {
        request_permission(&[PermissionType::ReadCliPipes]);
        subscribe(&[EventType::PermissionRequestResult]);
        set_selectable(false);
        hide_self();
    }

    fn update(&mut self, event: Event) -> bool {
        if let Event::PermissionRequestResult(_) = event {
            self.granted = true;
            hide_self();
            for pipe in std::mem::take(&mut self.held) {
                self.answer(&pipe);
            }
        }
        false
    }

    fn pipe(&mut self, msg: PipeMessage) -> bool {
        hide_self();
        if msg.name.starts_with("ask-popup:") || msg.name.starts_with("herdr:") {
            self.heard.push(serde_json::json!({
                "name": msg.name,
                "payload": msg.payload,
            }));
        } else if let PipeSource::Cli(pipe) = &msg.source {
            // Answer `heard` once per CLI call: its end-of-input message (no payload) is not
            // a second question.
            if msg.name == "heard" && msg.payload.is_some() {
                if self.granted {
                    self.answer(pipe);
                } else {
                    block_cli_pipe_input(pipe);
                    self.held.push(pipe.clone());
                }
            }
        }
        false
    }

    fn render(&mut self, _rows: usize, _cols: usize) {}
}

impl State {
    fn answer(&self, pipe: &str) {
        let mut output = serde_json::Value::from(self.heard.clone()).to_string();
        output.push('\n');
        cli_pipe_output(pipe, &output);
        unblock_cli_pipe_input(pipe);
    }
}
