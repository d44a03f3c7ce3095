//! Shared helpers for the broker's host tests: pipe messages in, replies and broadcasts out.
#![allow(dead_code)] // Not every test file uses every helper.

use ask_popup_plugin::broker::{Broker, Config, Effect, PipeIn, Source, KEY_GUARD_MS};
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

pub fn cli(pipe: &str, payload: Option<&str>, a: &[(&str, &str)]) -> PipeIn {
    PipeIn {
        source: Source::Cli(pipe.into()),
        name: "ask".into(),
        payload: payload.map(str::to_owned),
        args: args(a),
    }
}

/// The host's clock moves on by `ms` and a timer fires.
pub fn tick(b: &mut Broker, ms: u64) -> Vec<Effect> {
    b.set_clock(b.now_ms() + ms);
    b.timer()
}

/// Lets the key guard of a request that just appeared pass (see `KEY_GUARD_MS`).
pub fn settle(b: &mut Broker) {
    b.set_clock(b.now_ms() + KEY_GUARD_MS);
}

pub fn question(text: &str) -> String {
    json!({"questions": [{"question": text, "header": "H", "options": ["A", "B"]}]}).to_string()
}

pub fn replies(fx: &[Effect]) -> Vec<(String, Value)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Reply { pipe, output } if !output.is_empty() => Some((
                pipe.clone(),
                serde_json::from_str(output).expect("reply is JSON"),
            )),
            _ => None,
        })
        .collect()
}

pub fn broadcasts(fx: &[Effect], name: &str) -> Vec<Value> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Broadcast { name: n, payload } if n == name => {
                serde_json::from_str(payload).ok()
            }
            _ => None,
        })
        .collect()
}

/// A message on a CLI pipe named `name` (`status`, `cancel`, `show`).
pub fn named(pipe: &str, name: &str, payload: Option<&str>, a: &[(&str, &str)]) -> PipeIn {
    PipeIn {
        source: Source::Cli(pipe.into()),
        name: name.into(),
        payload: payload.map(str::to_owned),
        args: args(a),
    }
}

/// The renames among `fx`: (pane, title).
pub fn renames(fx: &[Effect]) -> Vec<(u32, String)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::RenamePane { pane, title } => Some((*pane, title.clone())),
            _ => None,
        })
        .collect()
}

/// The plugin's id in the session, the same in each of its instances.
pub const PLUGIN_ID: u32 = 7;

/// One instance of the plugin (of id `PLUGIN_ID`), as loaded, before it knows its client.
pub fn instance() -> Broker {
    let mut b = Broker::new(Config::default());
    b.set_plugin_id(PLUGIN_ID);
    b
}

/// Two instances, for clients 1 (the leader) and 2, that have said hello to each other.
pub fn two_clients() -> (Broker, Broker) {
    let mut one = instance();
    let mut two = instance();
    let hello_one = one.join(1);
    let hello_two = two.join(2);
    // Each hears the other's hello (and its own, which it ignores).
    carry(&hello_two, &mut one, &mut two);
    carry(&hello_one, &mut one, &mut two);
    assert!(one.leads() && !two.leads());
    (one, two)
}

/// Delivers the peer messages among `fx` to both instances, and what those answer, until
/// nothing more is said. Returns every effect the deliveries caused, per instance.
pub fn carry(fx: &[Effect], one: &mut Broker, two: &mut Broker) -> (Vec<Effect>, Vec<Effect>) {
    let (mut all_one, mut all_two) = (Vec::new(), Vec::new());
    let mut queue: Vec<PipeIn> = peer_messages(fx);
    for _ in 0..10 {
        if queue.is_empty() {
            break;
        }
        let mut next = Vec::new();
        for msg in queue {
            let a = one.pipe(msg.clone());
            let b = two.pipe(msg);
            next.extend(peer_messages(&a));
            next.extend(peer_messages(&b));
            all_one.extend(a);
            all_two.extend(b);
        }
        queue = next;
    }
    (all_one, all_two)
}

/// Both instances get the same pipe message, as Zellij delivers it.
pub fn both(msg: PipeIn, one: &mut Broker, two: &mut Broker) -> (Vec<Effect>, Vec<Effect>) {
    (one.pipe(msg.clone()), two.pipe(msg))
}

/// A message on the instances' pipe (`PEER_PIPE`) with `payload`, from `source`.
pub fn peer_pipe(source: Source, payload: &str) -> PipeIn {
    PipeIn {
        source,
        name: ask_popup_plugin::broker::PEER_PIPE.into(),
        payload: Some(payload.to_owned()),
        args: BTreeMap::new(),
    }
}

/// The messages among `fx` for the plugin's other instances, as they arrive there.
pub fn peer_messages(fx: &[Effect]) -> Vec<PipeIn> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Peer(payload) => Some(PipeIn {
                source: Source::Plugin(PLUGIN_ID),
                name: ask_popup_plugin::broker::PEER_PIPE.into(),
                payload: Some(payload.clone()),
                args: BTreeMap::new(),
            }),
            _ => None,
        })
        .collect()
}

/// The record's entries among `fx` (`Effect::Record`).
pub fn records(fx: &[Effect]) -> Vec<ask_popup_protocol::history::Entry> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Record(line) => ask_popup_protocol::history::Entry::from_line(line),
            _ => None,
        })
        .collect()
}

/// The text kept across the reload among `fx` (`Effect::KeepAcrossReload`), which must hold one.
pub fn kept_across_reload(fx: &[Effect]) -> String {
    let kept: Vec<&String> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::KeepAcrossReload(kept) => Some(kept),
            _ => None,
        })
        .collect();
    assert_eq!(kept.len(), 1, "{fx:?}");
    kept[0].clone()
}

/// An agent's permission prompt (`"approval": true`) for `command`, with the three choices a
/// hook offers: `Allow once`, `Allow always`, `Deny` (where the focus starts).
pub fn approval(command: &str) -> String {
    json!({"approval": true, "questions": [{
        "question": format!("Allow claude to use Bash: {command}?"),
        "header": "Approval",
        "options": ["Allow once", "Allow always", "Deny"]}]})
    .to_string()
}

/// The option the reply among `fx` picked, if one reply is there.
pub fn picked(fx: &[Effect]) -> Option<String> {
    match replies(fx).as_slice() {
        [(_, reply)] => reply["details"]["answers"][0]["answer"]
            .as_str()
            .map(str::to_owned),
        _ => None,
    }
}
