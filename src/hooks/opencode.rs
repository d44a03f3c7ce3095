//! opencode's permission prompts (`ask-popup opencode-approval`, run by the opencode plugin
//! ask-popup-approvals.js): the `permission.asked` event read as an approval, and opencode's
//! reply made from the popup's envelope.

use super::approval::questionnaire;
use super::preview::{command_preview, fenced, file_preview};
use crate::consent::{self, Verdict, Yes};
use serde_json::{json, Value};

/// One opencode permission prompt, from its `permission.asked` event (which the opencode
/// plugin hands `ask-popup opencode-approval` on stdin): `{id, sessionID, permission, patterns,
/// always, metadata, tool}`.
#[derive(Clone, Debug, PartialEq)]
pub struct OpencodeRequest {
    /// The questionnaire to put to the popup.
    pub payload: String,
    /// opencode's id for the prompt: the popup request's id.
    pub id: Option<String>,
    /// Whether opencode offers to allow it always (its `always` patterns).
    pub always: bool,
}

/// Reads a `permission.asked` event's properties: `Err` with why when they cannot be read
/// (opencode's own prompt then decides).
pub fn read_opencode(input: &[u8]) -> Result<Option<OpencodeRequest>, String> {
    let value: Value = serde_json::from_slice(input).map_err(|e| e.to_string())?;
    let Value::Object(event) = value else {
        return Err("the permission is not a JSON object".to_owned());
    };
    let permission = event
        .get("permission")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .ok_or("the permission names no tool")?;
    let strings = |key: &str| -> Vec<String> {
        event
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    let (patterns, always) = (strings("patterns"), strings("always"));
    let metadata = event
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let text = |key: &str| metadata.get(key).and_then(Value::as_str).unwrap_or("");
    let (summary, preview) = if !text("command").is_empty() {
        (
            text("command").to_owned(),
            command_preview(text("command"), text("description")),
        )
    } else if !text("filepath").is_empty() {
        let change = Some(("diff", text("diff"))).filter(|(_, diff)| !diff.is_empty());
        (
            text("filepath").to_owned(),
            file_preview(text("filepath"), change),
        )
    } else {
        let mut preview = patterns
            .iter()
            .map(|p| format!("- `{p}`"))
            .collect::<Vec<_>>()
            .join("\n");
        if !metadata.is_empty() {
            let json = serde_json::to_string_pretty(&metadata).unwrap_or_default();
            preview = format!("{preview}\n\n{}", fenced("json", &json));
        }
        (patterns.join(", "), preview)
    };
    let changes: Vec<String> = always
        .iter()
        .map(|p| format!("tells opencode to allow `{p}` from now on"))
        .collect();
    Ok(Some(OpencodeRequest {
        payload: questionnaire(
            OPENCODE,
            permission,
            &summary,
            &preview,
            (!always.is_empty()).then_some(changes.as_slice()),
        ),
        id: event
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_owned),
        always: !always.is_empty(),
    }))
}

/// The agent name the popup shows for opencode.
const OPENCODE: &str = "opencode";

/// What `ask-popup opencode-approval` prints for the popup's `envelope` to the request asked
/// under `id`: opencode's reply (`{"reply":"once"}`, `"always"`, made from the person's
/// `Consent` alone, or `"reject"` with the message the model reads), or `None`, which leaves the
/// decision to opencode's own prompt.
pub fn opencode_answer(request: &OpencodeRequest, id: &str, envelope: &str) -> Option<String> {
    let reply = match consent::approval(&request.payload, id, envelope)? {
        Verdict::Allow(consent) => match consent.yes() {
            Yes::Always => json!({"reply": "always"}),
            Yes::Once | Yes::Accept(_) => json!({"reply": "once"}),
        },
        Verdict::Deny(message) => json!({"reply": "reject", "message": message}),
    };
    Some(format!("{reply}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::approval::tests::responses;
    use crate::hooks::approval::{ALLOW_ONCE, DENY};
    use ask_popup_protocol::envelope::{self, Answer, Outcome, Responses};
    use ask_popup_protocol::request;

    #[test]
    fn opencodes_prompt_asks_with_its_command_and_replies_as_opencode_reads() {
        let event = json!({
            "id": "per_1", "sessionID": "ses_1", "permission": "bash",
            "patterns": ["touch x"], "always": ["touch *"],
            "metadata": {"command": "touch x", "description": "Touch it"},
            "tool": {"messageID": "msg_1", "callID": "call_1"},
        })
        .to_string();
        let r = read_opencode(event.as_bytes()).unwrap().unwrap();
        assert_eq!(r.id.as_deref(), Some("per_1"));
        let q = request::parse(&r.payload).unwrap();
        assert_eq!(
            q.questions[0].question,
            "Allow opencode to use bash: touch x?"
        );
        assert!(q.questions[0].options[1].description.contains("touch *"));
        assert_eq!(
            q.questions[0].options[0].preview.as_deref(),
            Some("```sh\ntouch x\n```\n\nTouch it")
        );
        let reply = |answer, note| {
            let env = envelope::outcome(
                &q,
                &Outcome::Submitted(responses(answer, note)),
                Some("per_1"),
            );
            opencode_answer(&r, "per_1", &env).map(|s| serde_json::from_str::<Value>(&s).unwrap())
        };
        assert_eq!(
            reply(Answer::Option(0), None),
            Some(json!({"reply": "once"}))
        );
        assert_eq!(
            reply(Answer::Option(1), None),
            Some(json!({"reply": "always"}))
        );
        assert_eq!(
            reply(Answer::Option(2), Some("not now")),
            Some(json!({"reply": "reject", "message": "The user denied this: not now"}))
        );
        let declined =
            envelope::outcome(&q, &Outcome::Declined(Responses::empty(1)), Some("per_1"));
        assert_eq!(opencode_answer(&r, "per_1", &declined), None);
        // The person's Allow on another prompt allows nothing here.
        let other = envelope::outcome(
            &q,
            &Outcome::Submitted(responses(Answer::Option(0), None)),
            Some("per_2"),
        );
        assert_eq!(opencode_answer(&r, "per_1", &other), None);
        // An edit shows its file and diff; anything else its patterns.
        let edit = br#"{"id":"per_2","permission":"edit","patterns":["a.rs"],"metadata":{"filepath":"/p/a.rs","diff":"-a\n+b\n"}}"#;
        let q = request::parse(&read_opencode(edit).unwrap().unwrap().payload).unwrap();
        assert_eq!(
            q.questions[0].question,
            "Allow opencode to use edit: /p/a.rs?"
        );
        assert_eq!(
            q.questions[0].options[0].preview.as_deref(),
            Some("`/p/a.rs`\n\n```diff\n-a\n+b\n```")
        );
        let labels: Vec<&str> = q.questions[0]
            .options
            .iter()
            .map(|o| o.label.as_str())
            .collect();
        assert_eq!(labels, [ALLOW_ONCE, DENY]);
        let other = br#"{"permission":"external_directory","patterns":["/etc/*"]}"#;
        let q = request::parse(&read_opencode(other).unwrap().unwrap().payload).unwrap();
        assert_eq!(
            q.questions[0].question,
            "Allow opencode to use external_directory: /etc/*?"
        );
        assert!(read_opencode(b"{}").is_err());
        assert!(read_opencode(b"[]").is_err());
    }
}
