//! The gate's state: whether pipe messages are answered yet, what waits behind it in the
//! order it came (counted toward the payloads held, `MAX_PENDING_BYTES`), and the grant as
//! this instance has it, which is not always what Zellij says it is (see `Grant`).

use super::{config::*, pipes::*};
use crate::dialog::Input;
use ask_popup_protocol::request::RequestError;
use std::collections::{BTreeMap, VecDeque};

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
        args: BTreeMap<String, String>,
    },
}

impl Held {
    /// The CLI pipe that waits for it, if any.
    pub(super) fn cli(&self) -> Option<&str> {
        match self {
            Held::Pipe(msg) => msg.source.cli(),
            Held::Unreadable { pipe, .. } | Held::Busy { pipe, .. } => Some(pipe),
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
            Held::Busy { pipe, args: a } => pipe.len() + args(a),
        }
    }
}

/// The gate's state, and what waits behind it, in the order it came.
#[derive(Debug, Default)]
pub(super) struct GateState {
    pub(super) state: Gate,
    pub(super) held: VecDeque<Held>,
    pub(super) grant: Grant,
    /// When the hellos' window ends, by the broker's clock: another timer that fires in it
    /// (the one-second tick, laying out ahead) does not end it.
    pub(super) hellos_until_ms: u64,
}

impl GateState {
    /// Whether pipe messages are answered as they come.
    pub(super) fn is_open(&self) -> bool {
        self.state == Gate::Open
    }

    /// Whether the instance is listening for the others' hellos (`HELLO_WINDOW_MS`).
    pub(super) fn hears_hellos(&self) -> bool {
        self.state == Gate::Hellos
    }

    /// Holds messages while the others' hellos come in, for `HELLO_WINDOW_MS` from `now_ms`.
    pub(super) fn listen_for_hellos(&mut self, now_ms: u64) {
        self.state = Gate::Hellos;
        self.hellos_until_ms = now_ms.saturating_add(HELLO_WINDOW_MS);
    }

    /// Whether the hellos' window is over at `now_ms` (a timer may fire up to 50 ms early).
    pub(super) fn hellos_over(&self, now_ms: u64) -> bool {
        self.state == Gate::Hellos && now_ms.saturating_add(50) >= self.hellos_until_ms
    }

    /// The bytes of what waits behind the gate.
    pub(super) fn held_bytes(&self) -> usize {
        self.held.iter().map(Held::bytes).sum()
    }
}

/// How long after a grant an instance that has heard nothing that needs it asks for the
/// permissions again (see `Grant`).
pub const GRANT_SILENCE_MS: u64 = 1500;
/// How many of the user's keys and clicks wait for that answer at most.
pub(super) const MAX_HELD_INPUT: usize = 64;

/// The permissions as this instance has them. When the user grants them with two clients
/// attached (the first question loading the plugin in both), Zellij 0.45.1 tells every
/// instance but gives the grant to one only; an instance left without it has every host call
/// refused. Asked again, Zellij answers at once from the grant it remembered, and gives it to
/// this instance. An instance asks again when the user first acts (the keys and clicks wait for
/// the answer), or after `GRANT_SILENCE_MS`; not at once: an instance granted from what Zellij
/// remembered gets its first events that need the grant (tab, pane and mode updates) within
/// moments, and asking while another instance's grant is being written down could show the
/// user the request again.
#[derive(Debug, Default)]
pub(super) struct Grant {
    /// When the permissions were first granted, by the broker's clock.
    pub(super) granted_ms: Option<u64>,
    pub(super) denied: bool,
    /// An event that needs the permissions came (a tab, pane or mode update).
    pub(super) state_heard: bool,
    pub(super) asked_again: bool,
    /// The answer to asking again (or another grant) came: this instance surely serves.
    pub(super) regranted: bool,
    /// The user's input while the grant is in doubt, for once it is not, each with the CLI
    /// pipe of the request it was typed at (none: at the list of those asked before, or at
    /// nothing).
    pub(super) held_input: Vec<(Input, Option<String>)>,
    /// Still awaiting the answer to the permission request, this instance heard an event that
    /// needs the grant: when first, and for which client (see `application_state_heard`).
    pub(super) unanswered: Option<(u64, u16)>,
}

impl Grant {
    /// An event that needs the grant came at `now_ms` for client `client`: whether it is the
    /// first (from which the silence is counted).
    pub(super) fn first_state_heard(&mut self, now_ms: u64, client: u16) -> bool {
        if self.unanswered.is_some() {
            return false;
        }
        self.unanswered = Some((now_ms, client));
        true
    }

    /// The client of the first event that needed the grant, once `GRANT_SILENCE_MS` (less
    /// `early_ms`) passed since it without an answer at `now_ms`.
    pub(super) fn silent_client(&self, now_ms: u64, early_ms: u64) -> Option<u16> {
        let (since, client) = self.unanswered?;
        (now_ms.saturating_add(early_ms) >= since.saturating_add(GRANT_SILENCE_MS))
            .then_some(client)
    }

    /// Granted, but neither an event that needs it nor a second grant came since.
    pub(super) fn in_doubt(&self) -> bool {
        self.granted_ms.is_some() && !self.state_heard && !self.regranted
    }

    /// Whether to ask again now (once): `acting`, the user acts.
    pub(super) fn ask_again(&mut self, now_ms: u64, acting: bool) -> bool {
        let due = self
            .granted_ms
            .is_some_and(|granted| acting || now_ms >= granted.saturating_add(GRANT_SILENCE_MS));
        let ask = self.in_doubt() && due && !self.asked_again;
        self.asked_again |= ask;
        ask
    }
}

/// Whether a `cancel` of `caller`'s request `id` is among `held`.
pub(super) fn holds_withdrawal(held: &VecDeque<Held>, caller: &Asker, id: &str) -> bool {
    held.iter().any(|held| match held {
        Held::Pipe(msg) => {
            msg.name == CANCEL_PIPE
                && msg.args.get("id").map(String::as_str) == Some(id)
                && Asker::of(&msg.args) == *caller
        }
        Held::Unreadable { .. } | Held::Busy { .. } => false,
    })
}
