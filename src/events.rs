//! What the plugin tells others, written down once: the broadcasts other plugins and status
//! bars hear, the `status` and `cancel` replies scripts read, and the messages between this
//! plugin's own instances. Each is a typed struct serialised as it goes on the wire.

use crate::request::Questionnaire;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    /// Requests waiting once this one has started or ended.
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
#[derive(Clone, Debug, Serialize, Deserialize)]
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
}

/// The `cancel` pipe's reply: how many requests were withdrawn.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Withdrawn {
    pub withdrawn: usize,
}

/// A message between this plugin's instances (one per attached client), from client `from`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PeerMessage {
    pub from: u16,
    #[serde(flatten)]
    pub kind: PeerKind,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Announced {
    pub pipe: String,
    pub pane_id: Option<u32>,
    pub agent: String,
    pub request_id: Option<String>,
}

/// A pending request as the leader hands it to a newcomer: its questionnaire in the request's
/// own JSON (parsed again by the newcomer), and how far its countdown has run.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncedRequest {
    pub pipe: String,
    pub args: std::collections::BTreeMap<String, String>,
    pub questionnaire: String,
    pub bytes: usize,
    pub timeout_ms: Option<u64>,
    /// None: no countdown (none asked for, or stopped because the user is at it).
    pub remaining_ms: Option<u64>,
}

/// One JSON line, as the wire wants it. Serialising these plain structs cannot fail; an empty
/// object stands in should it ever.
pub fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "{}".to_owned())
}
