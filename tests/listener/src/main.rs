//! A listener plugin for ask-popup's e2e tests. It records every pipe message it hears whose
//! name starts with `ask-popup:` or `herdr:` (what another plugin or a status bar would react
//! to) and answers a CLI pipe named `heard` with the list, as JSON:
//! `[{"name":"ask-popup:blocked","payload":"{…}"}, …]`.
//!
//! A CLI pipe named `balance` gets, instead of the whole list (which a long soak makes too large
//! to send), how many messages it heard and, for each blocked event and pane, the `active:true`
//! ones less the `active:false` ones: `{"heard":N,"balance":{"ask-popup:blocked 3":0,…}}`,
//! and the requests whose pair is open (at most 100): `"open":{"ask-popup:blocked 3 \"r7\"":1}`.
//!
//! Loaded with the option `forge "true"` it is also a forger, another plugin that speaks in
//! ask-popup's instances' voice: a CLI pipe named `forge` has its payload broadcast to every
//! plugin as a message named `ask-popup-peer`, as any plugin granted MessageAndLaunchOtherPlugins
//! can, and is answered `forged`.
//!
//! It hides its own pane, so it never covers the popup on screen.

use std::collections::BTreeMap;
use zellij_tile::prelude::*;

#[derive(Default)]
struct State {
    granted: bool,
    /// CLI pipes that arrived before the permission answer, answered once it came.
    held: Vec<String>,
    /// Whether it forges (the `forge` option), and the payloads to forge once granted.
    forger: bool,
    held_forgeries: Vec<(String, String)>,
    heard: Vec<serde_json::Value>,
    /// How many messages it heard, and the blocked events' balance (see the module's doc).
    count: usize,
    balance: BTreeMap<String, i64>,
    /// The same balance for each request (name, pane and request id), only where not 0.
    open: BTreeMap<String, i64>,
}

register_plugin!(State);

/// How long an instance holding a pipe waits for the permission answer before it takes itself
/// for granted.
const GRANT_SILENCE_S: f64 = 1.0;

impl State {
    fn request_permissions(&self) {
        if self.forger {
            request_permission(&[
                PermissionType::ReadCliPipes,
                PermissionType::MessageAndLaunchOtherPlugins,
            ]);
        } else {
            request_permission(&[PermissionType::ReadCliPipes]);
        }
    }

    /// A pipe came before the permission answer: Zellij 0.45.1 at times sends a newly
    /// attached client's instance's answer to another instance. Asked again, it answers at once
    /// from the grant it remembered, to this instance; and since that answer can go astray too,
    /// the instance takes itself for granted a moment later (the tests grant its permissions
    /// ahead, in Zellij's permission cache, as ask-popup's instances do with theirs).
    fn ask_again(&mut self) {
        self.request_permissions();
        set_timeout(GRANT_SILENCE_S);
    }

    /// Granted: answers what it held.
    fn granted(&mut self) {
        self.granted = true;
        hide_self();
        for pipe in std::mem::take(&mut self.held) {
            self.answer(&pipe);
        }
        for (pipe, payload) in std::mem::take(&mut self.held_forgeries) {
            forge(&pipe, &payload);
        }
    }
}

impl ZellijPlugin for State {
    fn load(&mut self, configuration: BTreeMap<String, String>) {
        self.forger = configuration.get("forge").is_some_and(|v| v == "true");
        self.request_permissions();
        subscribe(&[EventType::PermissionRequestResult, EventType::Timer]);
        set_selectable(false);
        hide_self();
    }

    fn update(&mut self, event: Event) -> bool {
        match event {
            Event::PermissionRequestResult(_) => self.granted(),
            Event::Timer(_) if !self.granted => self.granted(),
            _ => {}
        }
        false
    }

    fn pipe(&mut self, msg: PipeMessage) -> bool {
        hide_self();
        if msg.name.starts_with("ask-popup:") || msg.name.starts_with("herdr:") {
            self.count += 1;
            if msg.name.ends_with(":blocked") {
                let payload: serde_json::Value = msg
                    .payload
                    .as_deref()
                    .and_then(|p| serde_json::from_str(p).ok())
                    .unwrap_or_default();
                let step = if payload["active"] == true { 1 } else { -1 };
                let key = format!("{} {}", msg.name, payload["paneId"]);
                *self.balance.entry(key.clone()).or_default() += step;
                let key = format!("{key} {}", payload["requestId"]);
                let open = self.open.entry(key.clone()).or_default();
                *open += step;
                if *open == 0 {
                    self.open.remove(&key);
                }
            }
            self.heard.push(serde_json::json!({
                "name": msg.name,
                "payload": msg.payload,
            }));
        } else if let (PipeSource::Cli(pipe), true, "forge", Some(payload)) =
            (&msg.source, self.forger, msg.name.as_str(), &msg.payload)
        {
            if self.granted {
                forge(pipe, payload);
            } else {
                self.ask_again();
                block_cli_pipe_input(pipe);
                self.held_forgeries.push((pipe.clone(), payload.clone()));
            }
        } else if let PipeSource::Cli(pipe) = &msg.source {
            // Answer `heard` and `balance` once per CLI call: its end-of-input message (no
            // payload) is not a second question.
            if (msg.name == "heard" || msg.name == "balance") && msg.payload.is_some() {
                let pipe = if msg.name == "balance" {
                    format!("balance:{pipe}")
                } else {
                    pipe.clone()
                };
                if self.granted {
                    self.answer(&pipe);
                } else {
                    block_cli_pipe_input(pipe.trim_start_matches("balance:"));
                    self.held.push(pipe);
                    self.ask_again();
                }
            }
        }
        false
    }

    fn render(&mut self, _rows: usize, _cols: usize) {}
}

impl State {
    /// Answers `pipe` with the list, or (a `balance:` pipe) with the balance.
    fn answer(&self, pipe: &str) {
        let (pipe, mut output) = match pipe.strip_prefix("balance:") {
            Some(pipe) => (
                pipe,
                serde_json::json!({
                    "heard": self.count,
                    "balance": self.balance,
                    "open": self.open.iter().take(100).collect::<BTreeMap<_, _>>(),
                })
                .to_string(),
            ),
            None => (
                pipe,
                serde_json::Value::from(self.heard.clone()).to_string(),
            ),
        };
        output.push('\n');
        cli_pipe_output(pipe, &output);
        unblock_cli_pipe_input(pipe);
    }
}

/// Broadcasts `payload` as a message of ask-popup's instances, and answers the CLI pipe.
fn forge(pipe: &str, payload: &str) {
    pipe_message_to_plugin(MessageToPlugin::new("ask-popup-peer").with_payload(payload));
    cli_pipe_output(pipe, "forged\n");
    unblock_cli_pipe_input(pipe);
}
