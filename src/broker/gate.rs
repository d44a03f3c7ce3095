//! The gate: pipe messages wait, their CLIs blocked, until the user answers Zellij's
//! permission request and the other instances have said hello; then they are answered as if
//! they came then. What waits counts toward the payloads held (`MAX_PENDING_BYTES`), as the
//! questions asked and arriving do.

use super::*;

/// Whether pipe messages are answered yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Gate {
    /// Answered as they come.
    #[default]
    Open,
    /// Held, their CLIs kept waiting, until the user answers Zellij's permission request.
    Permission,
    /// Held while the other instances' hellos come in (`HELLO_WINDOW_MS`).
    Hellos,
}

/// A pipe message held behind the gate.
#[derive(Debug)]
pub(super) enum Held {
    Pipe(PipeIn),
    /// A CLI message whose payload could not be taken in.
    Unreadable {
        pipe: String,
        args: BTreeMap<String, String>,
        error: RequestError,
    },
    /// A CLI whose message would have made what is held pass `MAX_PENDING_BYTES`: what it
    /// sent is dropped, and it is answered `busy` when the gate opens.
    Busy {
        pipe: String,
        request_id: Option<String>,
    },
}

impl Held {
    /// The CLI pipe that waits for it, if any.
    fn cli(&self) -> Option<&str> {
        match self {
            Held::Pipe(PipeIn {
                source: Source::Cli(pipe),
                ..
            })
            | Held::Unreadable { pipe, .. }
            | Held::Busy { pipe, .. } => Some(pipe),
            Held::Pipe(_) => None,
        }
    }

    /// The bytes it keeps: its payload, name and arguments.
    pub(super) fn bytes(&self) -> usize {
        let args = |args: &BTreeMap<String, String>| -> usize {
            args.iter().map(|(k, v)| k.len() + v.len()).sum()
        };
        match self {
            Held::Pipe(msg) => {
                msg.payload.as_ref().map_or(0, String::len) + msg.name.len() + args(&msg.args)
            }
            Held::Unreadable { pipe, args: a, .. } => pipe.len() + args(a),
            Held::Busy { pipe, request_id } => {
                pipe.len() + request_id.as_ref().map_or(0, String::len)
            }
        }
    }
}

/// The gate's state, and what waits behind it, in the order it came.
#[derive(Debug, Default)]
pub(super) struct GateState {
    pub(super) state: Gate,
    pub(super) held: std::collections::VecDeque<Held>,
}

impl Broker {
    /// Zellij holds the plugin back until the user answers its permission request: hold every
    /// pipe message until then (see `permission`).
    pub fn await_permission(&mut self) {
        self.gate.state = Gate::Permission;
    }

    /// The user answered the permission request. Granted, this instance (for client
    /// `client`) says hello to the others and listens for theirs a moment before it answers
    /// what it held; denied, it answers what it can at once.
    pub fn permission(&mut self, granted: bool, client: u16) -> Vec<Effect> {
        if granted && self.peers.me.is_some() && self.gate.state == Gate::Open {
            // Granted again (Zellij tells every instance when the grant came without a
            // client): this instance already serves, and holding messages again would only
            // delay them.
            return Vec::new();
        }
        if !granted {
            return self.release(false);
        }
        let mut effects = self.join(client);
        self.gate.state = Gate::Hellos;
        effects.push(Effect::SetTimer(HELLO_WINDOW_MS as f64 / 1000.0));
        effects
    }

    /// Answers the messages held behind the gate, as if they came now. `hide`: the popup
    /// hides if nothing is left to ask (it showed itself for the permission request).
    pub(super) fn release(&mut self, hide: bool) -> Vec<Effect> {
        self.gate.state = Gate::Open;
        let mut effects = Vec::new();
        // One at a time: what still waits counts toward what is held meanwhile.
        while let Some(held) = self.gate.held.pop_front() {
            effects.extend(match held {
                Held::Pipe(msg) => self.replay_held(msg),
                Held::Unreadable { pipe, args, error } => {
                    self.pipe_unreadable(&pipe, &args, &error)
                }
                Held::Busy { pipe, request_id } => {
                    let mut effects = Vec::new();
                    self.arrivals.drop_partial(&pipe);
                    let output = envelope::host_error(ErrorCode::Busy, request_id.as_deref());
                    self.reply_shared(&pipe, output, &mut effects);
                    self.done(effects)
                }
            });
        }
        if hide && self.pending.is_empty() {
            effects.push(Effect::Hide);
        }
        effects.push(Effect::Render);
        effects
    }

    /// Holds `held` behind the gate, keeping its CLI waiting.
    pub(super) fn hold(&mut self, held: Held) -> Vec<Effect> {
        let Some(pipe) = held.cli().map(str::to_owned) else {
            // Nobody waits for a plugin's or a keybinding's message, and of those only `show`
            // does anything once the gate opens: one is held, the rest are let go.
            let show =
                |h: &Held| matches!(h, Held::Pipe(m) if h.cli().is_none() && m.name == SHOW_PIPE);
            if show(&held) && !self.gate.held.iter().any(show) {
                self.gate.held.push_back(held);
            }
            return Vec::new();
        };
        let busy = |h: &Held| matches!(h, Held::Busy { pipe: p, .. } if *p == pipe);
        if self.gate.held.iter().any(busy) {
            // To be answered `busy`: the rest of its input is not kept either.
            return vec![Effect::Block(pipe)];
        }
        // A question asked again with the id of a waiting one takes its place (see
        // `question_piece`): only the difference counts.
        let replaced = match &held {
            Held::Pipe(msg) if is_question_pipe(&msg.name) => self.replaced_bytes(&msg.args),
            _ => 0,
        };
        let held_then = self.held_bytes().saturating_sub(replaced);
        if held_then.saturating_add(held.bytes()) > MAX_PENDING_BYTES {
            // Holding more could exhaust the plugin's memory. It is answered when the gate
            // opens, not now: before the grant Zellij refuses a plugin's reply, and until the
            // hellos are in nobody knows which instance answers.
            let request_id = match &held {
                Held::Pipe(msg) => msg.args.get("id").cloned(),
                Held::Unreadable { args, .. } => args.get("id").cloned(),
                Held::Busy { request_id, .. } => request_id.clone(),
            };
            self.gate.held.retain(|h| h.cli() != Some(pipe.as_str()));
            self.gate.held.push_back(Held::Busy {
                pipe: pipe.clone(),
                request_id,
            });
            return vec![Effect::Block(pipe)];
        }
        self.gate.held.push_back(held);
        vec![Effect::Block(pipe)]
    }

    /// A pipe message the plugin held, its CLI blocked, until the permission answer came. As
    /// `pipe`, except that a CLI the message neither keeps waiting nor answers (the first line
    /// of a payload still coming on stdin) is let go with an empty reply: nobody else would
    /// release it, and it would never send the rest.
    pub fn replay_held(&mut self, msg: PipeIn) -> Vec<Effect> {
        let cli = match &msg.source {
            Source::Cli(id) => Some(id.clone()),
            Source::Plugin(_) | Source::Keybind => None,
        };
        let mut effects = self.pipe(msg);
        if let Some(id) = cli {
            let handled = effects
                .iter()
                .any(|e| matches!(e, Effect::Block(p) | Effect::Reply { pipe: p, .. } if *p == id));
            if !handled && self.leads() {
                effects.push(Effect::Reply {
                    pipe: id,
                    output: String::new(),
                });
            }
        }
        effects
    }
}
