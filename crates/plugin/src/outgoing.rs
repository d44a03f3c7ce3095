//! What the plugin tells others, written down once: the broadcasts other plugins and status
//! bars hear, the `status` and `cancel` replies scripts read, and the messages between this
//! plugin's own instances. Each is a typed struct serialised as it goes on the wire.

use ask_popup_protocol::request::Questionnaire;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The label herdr and status bars show while an agent waits.
pub const WAITING_LABEL: &str = "Waiting for user response";
/// Broadcast names.
pub const BLOCKED_EVENT: &str = "ask-popup:blocked";
pub const HERDR_BLOCKED_EVENT: &str = "herdr:blocked";
pub const PROMPT_EVENT: &str = "ask-popup:prompt";
pub const ANSWERED_EVENT: &str = "ask-popup:answered";
pub const CANCELLED_EVENT: &str = "ask-popup:cancelled";

/// `ask-popup:blocked` and `herdr:blocked`: an agent started or stopped waiting.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Blocked<'a> {
    pub active: bool,
    pub label: &'static str,
    pub pane_id: Option<u32>,
    pub agent: &'a str,
    /// What waits on the person once this one has started or ended: questions asked and
    /// other dialogs (`ask-popup blocked`).
    pub pending: usize,
    /// The request's id, when its caller gave one: a listener can pair each `active:true`
    /// with its `active:false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<&'a str>,
}

/// `ask-popup:prompt`: the questions about to be asked, without preview bodies.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt<'a> {
    pub questions: Vec<PromptQuestion<'a>>,
    pub pane_id: Option<u32>,
    pub agent: Option<&'a str>,
    pub request_id: Option<&'a str>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptQuestion<'a> {
    pub question: &'a str,
    pub header: &'a str,
    pub multi_select: bool,
    pub options: Vec<PromptOption<'a>>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptOption<'a> {
    pub label: &'a str,
    pub description: &'a str,
    pub has_preview: bool,
}

impl<'a> Prompt<'a> {
    pub fn new(
        questionnaire: &'a Questionnaire,
        pane_id: Option<u32>,
        agent: Option<&'a str>,
        request_id: Option<&'a str>,
    ) -> Self {
        let questions = questionnaire
            .questions
            .iter()
            .map(|question| PromptQuestion {
                question: &question.question,
                header: &question.header,
                multi_select: question.multi_select,
                options: question
                    .options
                    .iter()
                    .map(|option| PromptOption {
                        label: &option.label,
                        description: &option.description,
                        has_preview: option.preview.is_some(),
                    })
                    .collect(),
            })
            .collect();
        Prompt {
            questions,
            pane_id,
            agent,
            request_id,
        }
    }
}

/// `ask-popup:answered` and `ask-popup:cancelled`: how a request ended.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ended {
    pub pane_id: Option<u32>,
    pub agent: String,
    pub request_id: Option<String>,
    /// How many questions it had.
    pub questions: usize,
    /// Answered: how many questions got an answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered: Option<usize>,
    /// Not answered: why (`declined`, `chat`, `timed_out`, or a host error code).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// With `full_events`: the envelope's details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

impl Ended {
    /// The broadcast's name.
    pub fn name(&self) -> &'static str {
        if self.answered.is_some() {
            ANSWERED_EVENT
        } else {
            CANCELLED_EVENT
        }
    }
}

/// The `status` pipe's reply: what is waiting.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status<'a> {
    pub pending: Vec<StatusEntry<'a>>,
    pub visible: bool,
    /// What the plugin holds in memory, when the pipe's arguments ask for it (`held=1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held: Option<Held>,
}

/// What the plugin holds, for scripts that watch its memory (the soak test): the payloads of
/// waiting and arriving requests, the replies kept for callers that ask again, and the pipes
/// remembered as answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Held {
    pub payload_bytes: usize,
    pub reply_bytes: usize,
    pub answered_pipes: usize,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusEntry<'a> {
    pub agent: String,
    pub pane_id: Option<u32>,
    pub request_id: Option<&'a str>,
    pub headers: Vec<&'a str>,
    pub age_seconds: u64,
    pub shown: bool,
    /// The session it was asked in, when another one (`from_session`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<&'a str>,
}

/// The `cancel` pipe's reply: how many requests were withdrawn.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Withdrawn {
    pub withdrawn: usize,
}

/// The `pick` pipe's reply: whether the request was answered, and if not why (`unknown`: no
/// such request waits; `not_offered`: a notification offers no such pick).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Picked {
    pub picked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<&'static str>,
}

/// A message between this plugin's instances (one per attached client), from client `from`.
/// Read back by [`PeerMessage::from_json`].
#[derive(Clone, Debug, Serialize)]
pub struct PeerMessage {
    pub from: u16,
    #[serde(flatten)]
    pub kind: PeerKind,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PeerKind {
    /// This instance is here (sent on load, and in answer to a newcomer's hello).
    Hello,
    /// The user (or the leader's countdown) ended the request of CLI pipe `pipe` here with
    /// `reply`; the others drop it (remembering the reply for a caller that asks again), and
    /// the leader broadcasts `event`.
    Settled {
        pipe: String,
        event: Ended,
        reply: String,
    },
    /// The user is at the request of `pipe` here: its countdown stops everywhere.
    Touched { pipe: String },
    /// The leader's pending requests and lately answered pipes, for the newcomer `to` (a
    /// client that attached after they arrived: its instance never heard them).
    Sync {
        to: u16,
        requests: Vec<SyncedRequest>,
        answered: Vec<String>,
        /// The waits in dialogs not ours (`ask-popup blocked`); missing from an older leader.
        waits: Vec<Announced>,
    },
    /// This instance's client left the session: it no longer answers for the others, and the
    /// leader takes over the waits it announced (it says their end, or says it now if they
    /// ended already).
    Bye { announced: Vec<Announced> },
    /// The client `client` has left the session (the leader saw it in a tab update): its
    /// instance says bye, and the others forget it.
    Gone { client: u16 },
}

/// A wait an instance announced (`ask-popup:blocked` active) and hands over as it leaves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Announced {
    pub pipe: String,
    pub pane_id: Option<u32>,
    pub agent: String,
    pub request_id: Option<String>,
}

/// A pending request as the leader hands it to a newcomer: its questionnaire in the request's
/// own JSON (parsed again by the newcomer), and how far its countdown has run.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncedRequest {
    pub pipe: String,
    pub args: BTreeMap<String, String>,
    pub questionnaire: String,
    pub bytes: usize,
    pub timeout_ms: Option<u64>,
    /// None: no countdown (none asked for, or stopped because the user is at it).
    pub remaining_ms: Option<u64>,
}

impl PeerMessage {
    /// Reads a message another instance wrote (`to_json` of a `PeerMessage`), as serde's
    /// derive would (fields it does not know are ignored, a missing or null optional field
    /// is None), or None when it is no such message.
    ///
    /// Read by hand from a `Value` rather than derived: the derive of a flattened, internally
    /// tagged enum buffers every message through serde's private `Content` tree, and that
    /// and the derived visitors of these five types were about 40 KB of the plugin; the JSON
    /// `Value` reader is in the plugin anyway (requests are read with it).
    pub fn from_json(json: &str) -> Option<PeerMessage> {
        let value: Value = serde_json::from_str(json).ok()?;
        let m = value.as_object()?;
        let from = number(m, "from")?;
        let kind = match m.get("kind")?.as_str()? {
            "hello" => PeerKind::Hello,
            "settled" => PeerKind::Settled {
                pipe: string(m, "pipe")?,
                event: Ended::from_value(m.get("event")?)?,
                reply: string(m, "reply")?,
            },
            "touched" => PeerKind::Touched {
                pipe: string(m, "pipe")?,
            },
            "sync" => PeerKind::Sync {
                to: number(m, "to")?,
                requests: list(m, "requests", SyncedRequest::from_value)?,
                answered: list(m, "answered", |v| v.as_str().map(str::to_owned))?,
                waits: match m.get("waits") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(_) => list(m, "waits", Announced::from_value)?,
                },
            },
            "bye" => PeerKind::Bye {
                announced: list(m, "announced", Announced::from_value)?,
            },
            "gone" => PeerKind::Gone {
                client: number(m, "client")?,
            },
            _ => return None,
        };
        Some(PeerMessage { from, kind })
    }
}

impl Ended {
    fn from_value(value: &Value) -> Option<Ended> {
        let m = value.as_object()?;
        Some(Ended {
            pane_id: optional(m, "paneId", number)?,
            agent: string(m, "agent")?,
            request_id: optional(m, "requestId", string)?,
            questions: number(m, "questions")?,
            answered: optional(m, "answered", number)?,
            reason: optional(m, "reason", string)?,
            result: m.get("result").filter(|v| !v.is_null()).cloned(),
        })
    }
}

impl Announced {
    fn from_value(value: &Value) -> Option<Announced> {
        let m = value.as_object()?;
        Some(Announced {
            pipe: string(m, "pipe")?,
            pane_id: optional(m, "paneId", number)?,
            agent: string(m, "agent")?,
            request_id: optional(m, "requestId", string)?,
        })
    }
}

impl SyncedRequest {
    fn from_value(value: &Value) -> Option<SyncedRequest> {
        let m = value.as_object()?;
        let args = m
            .get("args")?
            .as_object()?
            .iter()
            .map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
            .collect::<Option<BTreeMap<_, _>>>()?;
        Some(SyncedRequest {
            pipe: string(m, "pipe")?,
            args,
            questionnaire: string(m, "questionnaire")?,
            bytes: number(m, "bytes")?,
            timeout_ms: optional(m, "timeoutMs", number)?,
            remaining_ms: optional(m, "remainingMs", number)?,
        })
    }
}

/// Field `key` of `m`, a string.
fn string(m: &Map<String, Value>, key: &str) -> Option<String> {
    m.get(key)?.as_str().map(str::to_owned)
}

/// Field `key` of `m`, a whole number that fits `T`.
fn number<T: TryFrom<u64>>(m: &Map<String, Value>, key: &str) -> Option<T> {
    T::try_from(m.get(key)?.as_u64()?).ok()
}

/// An optional field: Some(None) when it is missing or null, None when it is there and
/// `read` cannot read it.
fn optional<T>(
    m: &Map<String, Value>,
    key: &str,
    read: impl Fn(&Map<String, Value>, &str) -> Option<T>,
) -> Option<Option<T>> {
    match m.get(key) {
        None | Some(Value::Null) => Some(None),
        Some(_) => read(m, key).map(Some),
    }
}

/// Field `key` of `m`, a list each of whose items `read` reads.
fn list<T>(
    m: &Map<String, Value>,
    key: &str,
    read: impl Fn(&Value) -> Option<T>,
) -> Option<Vec<T>> {
    m.get(key)?.as_array()?.iter().map(read).collect()
}

/// One JSON line, as the wire wants it. Serialising these plain structs cannot fail; an empty
/// object stands in should it ever.
pub fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "{}".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended(answered: Option<usize>, result: Option<Value>) -> Ended {
        Ended {
            pane_id: Some(7),
            agent: "claude".into(),
            request_id: Some("job-1".into()),
            questions: 2,
            answered,
            reason: answered.is_none().then(|| "declined".into()),
            result,
        }
    }

    #[test]
    fn every_peer_message_reads_back_as_it_was_written() {
        let announced = Announced {
            pipe: "p1".into(),
            pane_id: None,
            agent: "pi".into(),
            request_id: Some("r".into()),
        };
        let synced = SyncedRequest {
            pipe: "p2".into(),
            args: BTreeMap::from([("agent".into(), "codex".into())]),
            questionnaire: "{\"questions\":[]}".into(),
            bytes: 123,
            timeout_ms: Some(30_000),
            remaining_ms: None,
        };
        let kinds = [
            PeerKind::Hello,
            PeerKind::Settled {
                pipe: "p1".into(),
                event: ended(Some(2), Some(serde_json::json!({"answers": []}))),
                reply: "{\"content\":[]}\n".into(),
            },
            PeerKind::Settled {
                pipe: "p1".into(),
                event: ended(None, None),
                reply: String::new(),
            },
            PeerKind::Touched { pipe: "p3".into() },
            PeerKind::Sync {
                to: 4,
                requests: vec![synced],
                answered: vec!["p0".into()],
                waits: vec![announced.clone()],
            },
            PeerKind::Bye {
                announced: vec![announced.clone(), announced],
            },
            PeerKind::Gone { client: 65_535 },
        ];
        for kind in kinds {
            let sent = to_json(&PeerMessage { from: 3, kind });
            let read = PeerMessage::from_json(&sent).map(|m| to_json(&m));
            assert_eq!(read.as_deref(), Some(sent.as_str()));
        }
    }

    #[test]
    fn optional_fields_may_be_missing_or_null_and_unknown_ones_are_ignored() {
        let json = r#"{"from":1,"kind":"settled","pipe":"p","reply":"r","extra":[1],
            "event":{"paneId":null,"agent":"a","questions":1,"result":null}}"#;
        let Some(PeerMessage {
            kind: PeerKind::Settled { event, .. },
            ..
        }) = PeerMessage::from_json(json)
        else {
            panic!("not read: {json}");
        };
        assert_eq!(event.pane_id, None);
        assert_eq!(event.request_id, None);
        assert!(event.result.is_none());
    }

    #[test]
    fn what_is_no_peer_message_reads_as_none() {
        for json in [
            "",
            "[]",
            r#"{"kind":"hello"}"#,
            r#"{"from":-1,"kind":"hello"}"#,
            r#"{"from":70000,"kind":"hello"}"#,
            r#"{"from":1,"kind":"wave"}"#,
            r#"{"from":1,"kind":"touched"}"#,
            r#"{"from":1,"kind":"gone","client":1.5}"#,
            r#"{"from":1,"kind":"bye","announced":[{"pipe":"p"}]}"#,
            r#"{"from":1,"kind":"sync","to":2,"requests":[],"answered":[3]}"#,
        ] {
            assert!(PeerMessage::from_json(json).is_none(), "{json}");
        }
    }
}
