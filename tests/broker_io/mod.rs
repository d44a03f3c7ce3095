//! Shared helpers for the broker's host tests: pipe messages in, replies and broadcasts out.
#![allow(dead_code)] // Not every test file uses every helper.

use ask_popup::broker::{Broker, Effect, PipeIn, Source, KEY_GUARD_MS};
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

/// The messages among `fx` for the plugin's other instances, as they arrive there.
pub fn peer_messages(fx: &[Effect]) -> Vec<PipeIn> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Peer(payload) => Some(PipeIn {
                source: Source::Plugin,
                name: ask_popup::broker::PEER_PIPE.into(),
                payload: Some(payload.clone()),
                args: BTreeMap::new(),
            }),
            _ => None,
        })
        .collect()
}
