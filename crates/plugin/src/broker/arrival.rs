//! Questions arriving: payloads reassembled line by line, rejected, forgotten when their
//! caller went away, or refused as `busy` when too much is held.

use super::{config::*, gate::Held, pipes::*, state::Broker};
use crate::effect::Effect;
use crate::intake::{Assembly, Intake};
use ask_popup_protocol::envelope::{self, ErrorCode};
use ask_popup_protocol::request::{self, Questionnaire, RequestError};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// A payload still arriving line by line.
#[derive(Debug)]
pub(super) struct Partial {
    intake: Intake,
    last_line_ms: u64,
    /// Its pipe's arguments (who asks, its id).
    args: BTreeMap<String, String>,
}

/// The arrival side of the broker: payloads still coming, and what it must remember a while.
#[derive(Debug, Default)]
pub(super) struct Arrivals {
    partials: HashMap<String, Partial>,
    /// Pipes already answered, with when: their CLI may still send trailing lines and its
    /// end-of-input message. Forgotten after `FORGET_AFTER_MS`.
    answered: HashMap<String, u64>,
    /// Requests withdrawn before they arrived (the withdrawal overtook the question), with
    /// when: such a question is answered `aborted` at once.
    withdrawn: HashMap<(Asker, String), u64>,
    /// The replies requests ended with lately, by caller and id: a caller asking the same
    /// questionnaire again with that id gets the same reply (see `Arrivals::remember_reply`).
    replies: HashMap<(Asker, String), KeptReply>,
    /// The rejections lately of requests with an id, by caller and id: when and a hash of the
    /// reply. The same rejection again (its caller asking again after Zellij dropped the
    /// reply) is recorded once.
    rejected: HashMap<(Asker, String), (u64, u64)>,
    /// Replies a closing instance kept were read back (`Broker::recall`), and their file is
    /// still there (`Effect::ForgetKeptAcrossReload`).
    pub(super) recalled: bool,
}

/// A reply kept for a caller that may ask again.
#[derive(Debug)]
struct KeptReply {
    /// When the request ended.
    at_ms: u64,
    /// `Questionnaire::digest` of what was asked: only the same questionnaire gets it again.
    digest: u64,
    output: String,
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

impl Broker {
    /// One message of a question's pipe: a piece of its payload, or the end of its input.
    pub(super) fn question_piece(
        &mut self,
        pipe: String,
        payload: Option<String>,
        args: &BTreeMap<String, String>,
        effects: &mut Vec<Effect>,
    ) {
        let Some(payload) = payload else {
            self.input_ended(&pipe, effects);
            return;
        };
        if self.arrivals.answered.contains_key(&pipe) || self.asked().any(|r| r.pipe == pipe) {
            // More input after the questionnaire (trailing lines): nothing to say.
            return;
        }
        // A stdin line ends with its line break; a piece without one is the whole input (the
        // pipe's argument, or stdin's last line): nothing more will come for it.
        let last_piece = !payload.ends_with('\n');
        // A request asked again with its id (an agent whose call Zellij dropped) takes its
        // earlier self's place: only the difference counts.
        let held = self.held_bytes().saturating_sub(self.replaced_bytes(args));
        let now = self.now_ms;
        let partial = self
            .arrivals
            .partials
            .entry(pipe.clone())
            .or_insert_with(|| Partial {
                intake: Intake::new(),
                last_line_ms: now,
                args: args.clone(),
            });
        partial.last_line_ms = now;
        let size = payload.len();
        let assembly = partial.intake.feed_owned(payload);
        if held.saturating_add(size) > MAX_PENDING_BYTES {
            // Holding more could exhaust the plugin's memory and strand every waiting agent.
            self.arrivals.partials.remove(&pipe);
            self.reply_unasked(&pipe, args, ErrorCode::Busy, effects);
            return;
        }
        if assembly == Assembly::Incomplete && !last_piece {
            // Blank lines before the questionnaire, or more lines of it: wait.
            return;
        }
        let intake = self
            .arrivals
            .partials
            .remove(&pipe)
            .map(|p| p.intake)
            .unwrap_or_default();
        let parsed = if intake.too_large() {
            Err(RequestError::PayloadTooLarge {
                bytes: intake.size(),
            })
        } else if intake.is_blank() {
            Err(RequestError::empty())
        } else {
            request::parse(intake.text())
        };
        match parsed {
            Ok(questionnaire) => self.accept(pipe, questionnaire, intake.size(), args, effects),
            Err(e) => self.reject(&pipe, &e, args, effects),
        }
    }

    /// The end of a question pipe's input (its CLI's stdin closed): nothing to say for a pipe
    /// answered already; a payload that had not become a whole questionnaire is rejected.
    fn input_ended(&mut self, pipe: &str, effects: &mut Vec<Effect>) {
        if self.arrivals.answered.remove(pipe).is_some() {
            return;
        }
        let Some(partial) = self.arrivals.partials.remove(pipe) else {
            return;
        };
        let error = if partial.intake.is_blank() {
            RequestError::empty()
        } else {
            match request::parse(partial.intake.text()) {
                Err(e) => e,
                Ok(_) => RequestError::NotJson {
                    detail: "it ends too early".to_owned(),
                },
            }
        };
        self.reject(pipe, &error, &partial.args, effects);
    }

    /// A CLI pipe message whose payload could not be taken in (over the size limit, or not
    /// UTF-8): the caller is answered at once, and any earlier lines of it are dropped.
    pub fn pipe_unreadable(
        &mut self,
        pipe: &str,
        args: &BTreeMap<String, String>,
        error: &RequestError,
    ) -> Vec<Effect> {
        if !self.gate.is_open() {
            return self.hold(Held::Unreadable {
                pipe: pipe.to_owned(),
                args: args.clone(),
                error: error.clone(),
            });
        }
        let mut effects = Vec::new();
        self.arrivals.partials.remove(pipe);
        if !self.arrivals.answered.contains_key(pipe) {
            self.reject(pipe, error, args, &mut effects);
        }
        self.done(effects)
    }

    /// Answers `pipe`'s questionnaire, of pipe arguments `args`, with what is wrong with it.
    pub(super) fn reject(
        &mut self,
        pipe: &str,
        error: &RequestError,
        args: &BTreeMap<String, String>,
        effects: &mut Vec<Effect>,
    ) {
        let output = envelope::rejection(error, args.get("id").map(String::as_str));
        let id = args.get("id").filter(|id| !id.is_empty());
        // Asked again with its id after Zellij dropped the reply: the same rejection, recorded
        // once.
        let again = id.is_some_and(|id| {
            let now = self.now_ms;
            self.arrivals
                .note_rejection(Asker::of(args), id, &output, now)
        });
        if self.leads() && !again {
            self.record_unasked(args, None, error.code().as_str(), &output, effects);
        }
        self.reply_shared(pipe, output, effects);
    }

    /// Answers `pipe`'s request, of pipe arguments `args`, which was never asked, with the
    /// host's `code` (`busy`, `dismissed`).
    pub(super) fn reply_unasked(
        &mut self,
        pipe: &str,
        args: &BTreeMap<String, String>,
        code: ErrorCode,
        effects: &mut Vec<Effect>,
    ) {
        let output = envelope::host_error(code, args.get("id").map(String::as_str));
        if self.leads() {
            self.record_unasked(args, None, code.as_str(), &output, effects);
        }
        self.reply_shared(pipe, output, effects);
    }

    /// Drops what is remembered too long: answered pipes, withdrawals, replies, and partial payloads
    /// whose caller stopped sending (answered, in case it still listens).
    pub(super) fn forget_old(&mut self, effects: &mut Vec<Effect>) {
        let now = self.now_ms;
        let fresh = |at: &u64| now.saturating_sub(*at) < FORGET_AFTER_MS;
        self.arrivals.answered.retain(|_, at| fresh(at));
        self.arrivals.withdrawn.retain(|_, at| fresh(at));
        self.arrivals.rejected.retain(|_, (at, _)| fresh(at));
        self.arrivals.replies.retain(|_, kept| fresh(&kept.at_ms));
        let stale: Vec<String> = self
            .arrivals
            .partials
            .iter()
            .filter(|(_, p)| !fresh(&p.last_line_ms))
            .map(|(pipe, _)| pipe.clone())
            .collect();
        for pipe in stale {
            let Some(partial) = self.arrivals.partials.remove(&pipe) else {
                continue;
            };
            let error = RequestError::NotJson {
                detail: "its lines stopped arriving before it was complete".to_owned(),
            };
            self.reject(&pipe, &error, &partial.args, effects);
        }
    }

    /// The payload bytes of the waiting requests a question of the pipe arguments `args`
    /// would replace: those of its caller with its id.
    pub(super) fn replaced_bytes(&self, args: &BTreeMap<String, String>) -> usize {
        let Some(id) = args.get("id").map(String::as_str) else {
            return 0;
        };
        let caller = Asker::of(args);
        self.pending
            .iter()
            .filter(|r| r.caller == caller && r.request_id.as_deref() == Some(id))
            .map(|r| r.bytes)
            .sum()
    }

    /// Payload bytes held: pending requests, partial payloads, and the messages held until
    /// the permission answer (whole: payload, name and arguments).
    pub fn held_bytes(&self) -> usize {
        self.pending.iter().map(|r| r.bytes).sum::<usize>()
            + self
                .arrivals
                .partials
                .values()
                .map(|p| p.intake.size())
                .sum::<usize>()
            + self.gate.held_bytes()
    }

    /// What this instance holds in memory (`status` with `held=1`).
    pub fn held(&self) -> crate::outgoing::Held {
        crate::outgoing::Held {
            payload_bytes: self.held_bytes(),
            reply_bytes: self.arrivals.replies.values().map(|k| k.output.len()).sum(),
            answered_pipes: self.arrivals.answered.len(),
        }
    }

    /// Pipes remembered as answered, and partial payloads held (for the memory bounds).
    pub fn remembered(&self) -> (usize, usize) {
        (self.arrivals.answered.len(), self.arrivals.partials.len())
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

impl Broker {
    /// Takes back the replies an earlier instance of this session kept when the popup closed
    /// (`Effect::KeepAcrossReload`): their callers asking again get them at once. Text that is
    /// not what `kept_replies` writes is ignored.
    pub fn recall(&mut self, kept: &str) {
        let Ok(Value::Array(entries)) = serde_json::from_str::<Value>(kept) else {
            return;
        };
        for entry in entries {
            let caller = match (entry.get("pane"), entry.get("agent")) {
                (Some(pane), _) => match pane.as_u64().and_then(|p| u32::try_from(p).ok()) {
                    Some(pane) => Asker::Pane(pane),
                    None => continue,
                },
                (None, Some(agent)) => Asker::Agent(agent.as_str().map(str::to_owned)),
                (None, None) => continue,
            };
            let digest = entry.get("digest").and_then(Value::as_str);
            let (Some(id), Some(digest), Some(reply)) = (
                entry.get("id").and_then(Value::as_str),
                digest.and_then(|d| d.parse::<u64>().ok()),
                entry.get("reply").and_then(Value::as_str),
            ) else {
                continue;
            };
            self.arrivals
                .remember_reply(&caller, Some(id), digest, reply, self.now_ms);
            self.arrivals.recalled = true;
        }
    }
}
