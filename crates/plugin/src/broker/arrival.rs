//! What the broker keeps of questions arriving: payloads still coming line by line, the pipes
//! answered lately, withdrawals that came before their questions, rejections and the replies
//! kept for callers that ask again, each for a while and within bounds.

use super::{config::*, pipes::*};
use crate::intake::Intake;
use ask_popup_protocol::request::Questionnaire;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// A payload still arriving line by line.
#[derive(Debug)]
pub(super) struct Partial {
    pub(super) intake: Intake,
    pub(super) last_line_ms: u64,
    /// Its pipe's arguments (who asks, its id).
    pub(super) args: BTreeMap<String, String>,
}

/// The arrival side of the broker: payloads still coming, and what it must remember a while.
#[derive(Debug, Default)]
pub(super) struct Arrivals {
    pub(super) partials: HashMap<String, Partial>,
    /// Pipes already answered, with when: their CLI may still send trailing lines and its
    /// end-of-input message. Forgotten after `FORGET_AFTER_MS`.
    pub(super) answered: HashMap<String, u64>,
    /// Requests withdrawn before they arrived (the withdrawal overtook the question), with
    /// when: such a question is answered `aborted` at once.
    pub(super) withdrawn: HashMap<(Asker, String), u64>,
    /// The replies requests ended with lately, by caller and id: a caller asking the same
    /// questionnaire again with that id gets the same reply (see `Arrivals::remember_reply`).
    pub(super) replies: HashMap<(Asker, String), KeptReply>,
    /// The rejections lately of requests with an id, by caller and id: when and a hash of the
    /// reply. The same rejection again (its caller asking again after Zellij dropped the
    /// reply) is recorded once.
    pub(super) rejected: HashMap<(Asker, String), (u64, u64)>,
    /// Replies a closing instance kept were read back (`Broker::recall`), and their file is
    /// still there (`Effect::ForgetKeptAcrossReload`).
    pub(super) recalled: bool,
}

/// A reply kept for a caller that may ask again.
#[derive(Debug)]
pub(super) struct KeptReply {
    /// When the request ended.
    pub(super) at_ms: u64,
    /// `Questionnaire::digest` of what was asked: only the same questionnaire gets it again.
    pub(super) digest: u64,
    pub(super) output: String,
}

impl Arrivals {
    /// Whether `pipe` was answered lately.
    pub(super) fn was_answered(&self, pipe: &str) -> bool {
        self.answered.contains_key(pipe)
    }

    /// Forgets that `pipe` was answered (its end-of-input message came); whether it was.
    pub(super) fn let_go(&mut self, pipe: &str) -> bool {
        self.answered.remove(pipe).is_some()
    }

    /// The pipes answered lately.
    pub(super) fn answered_pipes(&self) -> Vec<String> {
        self.answered.keys().cloned().collect()
    }

    /// The reply the request of `caller` with `id` ended with lately, if that request asked
    /// `questionnaire`. (A used id with another questionnaire is a new question.) Its digest
    /// is taken only when there is a reply to compare it with. Never for an approval: an
    /// `Allow` is only the person's key on the approval on screen, never a repeat (none is
    /// kept, see `keeps_reply`; nor is one recalled).
    pub(super) fn kept_reply(
        &self,
        caller: &Asker,
        id: &str,
        questionnaire: &Questionnaire,
    ) -> Option<String> {
        if !keeps_reply(questionnaire) {
            return None;
        }
        self.replies
            .get(&(caller.clone(), id.to_owned()))
            .filter(|kept| kept.digest == questionnaire.digest())
            .map(|kept| kept.output.clone())
    }

    /// Forgets the reply the request of `caller` with `id` ended with lately; whether it was
    /// the person's answer (rather than an error: withdrawn, dismissed…). (Its caller took
    /// another session's answer: asked again, it is a new question.)
    pub(super) fn forget_answer(&mut self, caller: &Asker, id: &str) -> bool {
        self.replies
            .remove(&(caller.clone(), id.to_owned()))
            .and_then(|kept| ask_popup_protocol::envelope::Envelope::read(&kept.output))
            .is_some_and(|envelope| envelope.error().is_none())
    }

    /// Every payload still arriving, taken out: their pipes and pipe arguments.
    pub(super) fn take_partials(&mut self) -> Vec<(String, BTreeMap<String, String>)> {
        std::mem::take(&mut self.partials)
            .into_iter()
            .map(|(pipe, partial)| (pipe, partial.args))
            .collect()
    }

    /// Whether a payload of `pipe` is arriving (some of its lines came).
    pub(super) fn is_arriving(&self, pipe: &str) -> bool {
        self.partials.contains_key(pipe)
    }

    /// A withdrawal of `caller`'s request `id` that came before the request: answered
    /// `aborted` when it comes (see `take_withdrawal`).
    /// At most `MAX_REMEMBERED` of them, and `MAX_WITHDRAWN_BYTES` of callers' names and
    /// ids (an id may be long), the oldest forgotten first.
    pub(super) fn note_withdrawal(&mut self, caller: Asker, id: &str, now_ms: u64) {
        let size = |(caller, id): &(Asker, String)| {
            id.len()
                + match caller {
                    Asker::Agent(Some(agent)) => agent.len(),
                    Asker::Agent(None) | Asker::Pane(_) => 0,
                }
        };
        let key = (caller, id.to_owned());
        self.withdrawn.remove(&key);
        let mut held: usize = self.withdrawn.keys().map(size).sum();
        while self.withdrawn.len() >= MAX_REMEMBERED || held + size(&key) > MAX_WITHDRAWN_BYTES {
            let Some((oldest, _)) = forget_oldest(&mut self.withdrawn, |at| *at) else {
                break;
            };
            held = held.saturating_sub(size(&oldest));
        }
        self.withdrawn.insert(key, now_ms);
    }

    /// Whether `caller`'s request `id` was withdrawn before it came.
    pub(super) fn is_withdrawn(&self, caller: &Asker, id: &str) -> bool {
        self.withdrawn
            .contains_key(&(caller.clone(), id.to_owned()))
    }

    /// Whether `caller`'s request `id` was withdrawn before it came (forgetting it).
    pub(super) fn take_withdrawal(&mut self, caller: &Asker, id: &str) -> bool {
        self.withdrawn
            .remove(&(caller.clone(), id.to_owned()))
            .is_some()
    }

    /// Notes that `caller`'s request `id` was rejected with `output`: whether it was rejected
    /// with the same reply lately already. At most `MAX_REMEMBERED`, the oldest forgotten first.
    pub(super) fn note_rejection(
        &mut self,
        caller: Asker,
        id: &str,
        output: &str,
        now_ms: u64,
    ) -> bool {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        output.hash(&mut hasher);
        let hash = hasher.finish();
        let key = (caller, id.to_owned());
        let again = self.rejected.get(&key).is_some_and(|(_, h)| *h == hash);
        if !self.rejected.contains_key(&key) && self.rejected.len() >= MAX_REMEMBERED {
            forget_oldest(&mut self.rejected, |(at, _)| *at);
        }
        self.rejected.insert(key, (now_ms, hash));
        again
    }

    /// Drops what arrived of `pipe`'s payload.
    pub(super) fn drop_partial(&mut self, pipe: &str) {
        self.partials.remove(pipe);
    }
}

impl Arrivals {
    /// The replies remembered for callers that ask again (`Arrivals::replies`), as text that
    /// `recall` reads back in the next instance; `None` when there are none.
    pub(super) fn kept_replies(&self) -> Option<String> {
        let kept: Vec<Value> = self
            .replies
            .iter()
            .map(|((caller, id), kept)| {
                let mut entry = serde_json::Map::new();
                match caller {
                    Asker::Pane(pane) => entry.insert("pane".to_owned(), Value::from(*pane)),
                    Asker::Agent(agent) => {
                        entry.insert("agent".to_owned(), Value::from(agent.clone()))
                    }
                };
                entry.insert("id".to_owned(), Value::from(id.as_str()));
                // As text: a JSON number past 2^53 is not read back exactly everywhere.
                entry.insert("digest".to_owned(), Value::from(kept.digest.to_string()));
                entry.insert("reply".to_owned(), Value::from(kept.output.as_str()));
                Value::Object(entry)
            })
            .collect();
        (!kept.is_empty()).then(|| Value::Array(kept).to_string())
    }

    /// Remembers, for a while, the reply the request of `caller` with `id` that asked the
    /// questionnaire of `digest` ended with: asked again (Zellij dropped its caller's CLI
    /// before the reply reached it, and the caller asked again), it gets the same reply
    /// instead of the question a second time.
    pub(super) fn remember_reply(
        &mut self,
        caller: &Asker,
        id: Option<&str>,
        digest: u64,
        output: &str,
        now_ms: u64,
    ) {
        let Some(id) = id else { return };
        if output.len() > MAX_REMEMBERED_REPLY_BYTES {
            return;
        }
        let replies = &mut self.replies;
        let mut held: usize = replies.values().map(|k| k.output.len()).sum();
        while held + output.len() > MAX_REMEMBERED_REPLY_BYTES || replies.len() >= MAX_REMEMBERED {
            let Some((_, dropped)) = forget_oldest(replies, |kept| kept.at_ms) else {
                break;
            };
            held = held.saturating_sub(dropped.output.len());
        }
        let kept = KeptReply {
            at_ms: now_ms,
            digest,
            output: output.to_owned(),
        };
        replies.insert((caller.clone(), id.to_owned()), kept);
    }

    /// Remembers that `pipe` was answered, at `now_ms`.
    pub(super) fn remember(&mut self, pipe: &str, now_ms: u64) {
        if self.answered.len() >= MAX_REMEMBERED {
            forget_oldest(&mut self.answered, |at| *at);
        }
        self.answered.insert(pipe.to_owned(), now_ms);
    }
}

/// Whether a reply to `questionnaire` is kept for its caller asking again: not an approval's,
/// which its hook asking again after a dropped pipe gets by the person's answering it again.
pub(super) fn keeps_reply(questionnaire: &Questionnaire) -> bool {
    // Nor a form's with a secret in it: a kept reply can be written to a file.
    !questionnaire.approval && !questionnaire.form.as_ref().is_some_and(|f| f.has_secret())
}

/// Takes the entry of `map` that `at` says is the oldest out, to make room: the entry, or
/// `None` when `map` is empty.
fn forget_oldest<K: Clone + Eq + std::hash::Hash, V>(
    map: &mut HashMap<K, V>,
    at: impl Fn(&V) -> u64,
) -> Option<(K, V)> {
    let oldest = map
        .iter()
        .min_by_key(|(_, value)| at(value))
        .map(|(key, _)| key.clone())?;
    map.remove_entry(&oldest)
}
