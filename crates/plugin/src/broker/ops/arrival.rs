//! Questions arriving: payloads reassembled line by line, rejected, forgotten when their
//! caller went away, or refused as `busy` when too much is held.

use crate::broker::{arrival::Partial, config::*, gate::Held, pipes::*, state::Broker};
use crate::effect::Effect;
use crate::intake::{Assembly, Intake};
use ask_popup_protocol::envelope::{self, ErrorCode};
use ask_popup_protocol::request::{self, RequestError};
use serde_json::Value;
use std::collections::BTreeMap;

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
        self.queue
            .iter()
            .filter(|r| r.caller == caller && r.request_id.as_deref() == Some(id))
            .map(|r| r.bytes)
            .sum()
    }

    /// Payload bytes held: pending requests, partial payloads, and the messages held until
    /// the permission answer (whole: payload, name and arguments).
    pub fn held_bytes(&self) -> usize {
        self.queue.iter().map(|r| r.bytes).sum::<usize>()
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
