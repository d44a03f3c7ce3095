//! A pipe message's way in: by its source and name to what answers it; and what every event
//! ends with (`done`).

use crate::broker::{gate::Held, pipes::*, state::Broker};
use crate::effect::Effect;
use crate::outgoing::{to_json, Withdrawn};
use ask_popup_protocol::envelope::{self};
use ask_popup_protocol::request::RequestError;

impl Broker {
    /// A pipe message arrived.
    pub fn pipe(&mut self, msg: PipeIn) -> Vec<Effect> {
        // The instances' messages decide who leads, what shows and who is answered: one that
        // did not come from this plugin (another plugin or a keybinding may name a message
        // so) is ignored before anything else reads it. A CLI's is an unknown pipe, below.
        let from_a_peer = match (&msg.source, msg.name.as_str()) {
            (Source::Plugin(id), PEER_PIPE) if self.peers.is_own(*id) => true,
            (Source::Plugin(id), PEER_PIPE) => {
                return vec![Effect::IgnoredPeerMessage {
                    from_plugin: Some(*id),
                }]
            }
            (Source::Keybind, PEER_PIPE) => {
                return vec![Effect::IgnoredPeerMessage { from_plugin: None }]
            }
            _ => false,
        };
        if self.peers.is_away() && matches!(msg.source, Source::Cli(_)) {
            // An instance whose client left answers no caller, and must not hold one: Zellij
            // keeps one blocked-or-not flag per CLI pipe, set by whichever instance spoke
            // last, so its hold coming after the leader's reply would keep that caller waiting
            // for good (a question asked again once answered is replied to at once). What it
            // misses comes with the leader's sync when its client is back.
            return self.done(Vec::new());
        }
        // The other instances' hellos are never held: they decide who answers the rest.
        if !self.gate.is_open() && !from_a_peer {
            return self.hold(Held::Pipe(msg));
        }
        let mut effects = Vec::new();
        self.forget_old(&mut effects);
        match msg.source {
            Source::Cli(ref pipe) => {
                let pipe = pipe.clone();
                self.cli_pipe(pipe, msg, &mut effects);
            }
            Source::Keybind | Source::Plugin(_) => match msg.name.as_str() {
                SHOW_PIPE => self.show_or_list(&mut effects),
                PEER_PIPE => self.peer(msg.payload.as_deref().unwrap_or(""), &mut effects),
                _ => {}
            },
        }
        self.done(effects)
    }

    /// A message of `zellij pipe` (CLI pipe `pipe`), by its name.
    pub(super) fn cli_pipe(&mut self, pipe: String, msg: PipeIn, effects: &mut Vec<Effect>) {
        match msg.name.as_str() {
            STATUS_PIPE => {
                let mut status = self.status();
                if msg
                    .args
                    .get("held")
                    .is_some_and(|v| v == "1" || v == "true")
                {
                    status.held = Some(self.held());
                }
                let output = format!("{}\n", to_json(&status));
                self.reply_once(&pipe, msg.payload.is_some(), output, effects);
            }
            VERSION_PIPE => {
                let output = format!("{VERSION}\n");
                self.reply_once(&pipe, msg.payload.is_some(), output, effects);
            }
            SHOW_PIPE => {
                self.bring_forward(&msg.args, effects);
                self.show_or_list(effects);
                self.reply_once(&pipe, msg.payload.is_some(), String::new(), effects);
            }
            BLOCKED_PIPE => self.blocked_pipe(&pipe, &msg, effects),
            PICK_PIPE => self.pick_pipe(&pipe, &msg, effects),
            CANCEL_PIPE => {
                self.answer_first(&pipe, msg.payload.is_some(), effects, |b, fx| {
                    let withdrawn = b.withdraw(&msg.args, fx);
                    format!("{}\n", to_json(&Withdrawn { withdrawn }))
                });
            }
            name if is_question_pipe(name) => {
                self.question_piece(pipe, msg.payload, &msg.args, effects)
            }
            name => {
                self.answer_first(&pipe, msg.payload.is_some(), effects, |_, _| {
                    let error = RequestError::UnknownPipe {
                        name: crate::view::text::sanitize_line(name),
                    };
                    envelope::rejection(&error, msg.args.get("id").map(String::as_str))
                });
            }
        }
    }

    /// A pipe that answers at once (`status`, `show`, `version`): answered on its first
    /// message, and its end-of-input message is let go.
    pub(super) fn reply_once(
        &mut self,
        pipe: &str,
        has_payload: bool,
        output: String,
        effects: &mut Vec<Effect>,
    ) {
        if has_payload || !self.arrivals.was_answered(pipe) {
            self.reply_shared(pipe, output, effects);
        } else {
            self.arrivals.let_go(pipe);
        }
    }

    /// A pipe answered on its first message alone (`cancel`, a pipe of an unknown name):
    /// `answer` decides the reply then, which the leader sends; the pipe's further lines and its
    /// end of input are let go.
    pub(super) fn answer_first(
        &mut self,
        pipe: &str,
        has_payload: bool,
        effects: &mut Vec<Effect>,
        answer: impl FnOnce(&mut Self, &mut Vec<Effect>) -> String,
    ) {
        if !self.arrivals.was_answered(pipe) {
            let output = answer(self, effects);
            self.reply_shared(pipe, output, effects);
        } else if !has_payload {
            self.arrivals.let_go(pipe);
        }
    }

    /// Answers `pipe` with what every instance decided alike: the leader replies.
    pub(super) fn reply_shared(&mut self, pipe: &str, output: String, effects: &mut Vec<Effect>) {
        self.arrivals.remember(pipe, self.now_ms);
        if self.leads() {
            effects.push(Effect::Reply {
                pipe: pipe.to_owned(),
                output,
            });
        }
    }

    /// The effects of one event, as this instance executes them: only the leader marks titles
    /// (broadcasts are decided where they are made: see `Request::owed_ends`).
    pub(super) fn done(&mut self, mut effects: Vec<Effect>) -> Vec<Effect> {
        self.check_grant(false, &mut effects);
        if !self.leads() {
            effects.retain(|e| !matches!(e, Effect::RenamePane { .. }));
        }
        self.arm_tick(&mut effects);
        effects
    }
}
