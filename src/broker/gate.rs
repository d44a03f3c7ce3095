//! The gate: pipe messages wait, their CLIs blocked, until the user answers Zellij's
//! permission request and the other instances have said hello; then they are answered as if
//! they came then.

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
}

/// The gate's state, and what waits behind it.
#[derive(Debug, Default)]
pub(super) struct GateState {
    pub(super) state: Gate,
    pub(super) held: Vec<Held>,
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
        for held in std::mem::take(&mut self.gate.held) {
            effects.extend(match held {
                Held::Pipe(msg) => self.replay_held(msg),
                Held::Unreadable { pipe, args, error } => {
                    self.pipe_unreadable(&pipe, &args, &error)
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
        let cli = match &held {
            Held::Pipe(PipeIn {
                source: Source::Cli(id),
                ..
            }) => Some(id.clone()),
            Held::Unreadable { pipe, .. } => Some(pipe.clone()),
            Held::Pipe(_) => None,
        };
        self.gate.held.push(held);
        cli.map(Effect::Block).into_iter().collect()
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
