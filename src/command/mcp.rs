//! `ask-popup mcp`: what the MCP server decides, apart from speaking the protocol. The tool's
//! result is the envelope (its text as content, its details as structured content, an error
//! when it carries one), the popup names the asking agent after the MCP client, and a
//! waiting call tells the client it is alive.

use crate::command::ask::agent_value;
use serde_json::Value;

/// How often a waiting call sends a progress notification (when the client gave a progress
/// token): often enough for clients that reset their request timeout on progress.
pub const PROGRESS_EVERY_S: u64 = 5;

/// The tool's result, from the envelope the popup (or the command) wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    /// What the model reads: the envelope's text.
    pub text: String,
    /// The structured content: the envelope's `details`, for clients that read them beside the
    /// text; `None` for a client that would hand the model the details instead of the text.
    pub structured: Option<Value>,
    /// Whether the envelope carries an `error` (a validation error, a timeout, or the popup
    /// unable to answer).
    pub is_error: bool,
}

/// The tool result for `envelope`, for the client named `client` (its `clientInfo.name`);
/// `None` if it is not an envelope.
pub fn tool_result(envelope: &str, client: Option<&str>) -> Option<ToolResult> {
    let envelope: Value = serde_json::from_str(envelope).ok()?;
    let text = envelope["content"][0]["text"].as_str()?.to_owned();
    let details = envelope.get("details").filter(|d| d.is_object())?;
    let is_error = details.get("error").is_some();
    Some(ToolResult {
        text,
        structured: (!hides_text_behind_structure(client)).then(|| details.clone()),
        is_error,
    })
}

/// Whether the client gives its model a result's structured content in place of its text, so
/// that the model would read the details' JSON and never the envelope's words (what to do on
/// "Chat about this", that a timeout is not a decline). Codex (0.169) does.
pub fn hides_text_behind_structure(client: Option<&str>) -> bool {
    client.is_some_and(|name| name.trim().to_ascii_lowercase().starts_with("codex"))
}

/// The progress notification's message while the call waits `waited_s` seconds for the user.
pub fn progress_message(waited_s: u64) -> String {
    format!("Waiting for the user to answer in the popup ({waited_s} s so far)")
}

/// The name the popup shows for an MCP client: its `clientInfo.name` without the usual
/// `-mcp-client` tail (`codex-mcp-client` → `codex`), or `mcp` when it gave none.
pub fn agent_of(client_name: Option<&str>) -> String {
    let name = client_name.unwrap_or("").trim();
    let name = ["-mcp-client", "_mcp_client", " mcp client", "-mcp"]
        .iter()
        .find_map(|tail| name.strip_suffix(tail))
        .unwrap_or(name);
    let name = agent_value(name);
    if name.is_empty() {
        "mcp".to_owned()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::{self, ErrorCode, Outcome, Responses};
    use crate::request;

    #[test]
    fn the_envelope_becomes_the_tool_result() {
        let questionnaire = request::parse(
            r#"{"questions":[{"question":"Which?","header":"H","options":["A","B"]}]}"#,
        )
        .unwrap();
        let mut responses = Responses::empty(1);
        responses.answers[0] = Some(envelope::Answer::Option(0));
        let answered = envelope::outcome(&questionnaire, &Outcome::Submitted(responses), None);
        let result = tool_result(&answered, Some("claude-code")).expect("an envelope");
        assert_eq!(
            result.text,
            "User has answered your questions: \"Which?\"=\"A\". You can now continue with the user's answers in mind."
        );
        let envelope: Value = serde_json::from_str(&answered).unwrap();
        assert_eq!(result.structured.as_ref(), Some(&envelope["details"]));
        assert!(!result.is_error);

        let declined = envelope::outcome(
            &questionnaire,
            &Outcome::Declined(Responses::empty(1)),
            None,
        );
        assert!(!tool_result(&declined, None).unwrap().is_error);

        for code in [ErrorCode::NoUi, ErrorCode::Dismissed, ErrorCode::TimedOut] {
            let result = tool_result(&envelope::host_error(code, None), None).unwrap();
            assert!(result.is_error, "{code:?}");
            assert_eq!(result.text, envelope::host_text(code));
        }
        let rejected = request::parse("{}").unwrap_err();
        let result = tool_result(&envelope::rejection(&rejected, None), None).unwrap();
        assert!(result.is_error);
        assert_eq!(result.text, rejected.to_string());
        assert_eq!(tool_result("nonsense", None), None);
        assert_eq!(
            tool_result(r#"{"content":[{"text":"t"}],"details":1}"#, None),
            None
        );
    }

    #[test]
    fn codex_gets_the_text_alone() {
        let declined = envelope::host_error(ErrorCode::NoUi, None);
        for client in ["codex-mcp-client", "Codex", "codex_exec"] {
            let result = tool_result(&declined, Some(client)).unwrap();
            assert_eq!(result.structured, None, "{client}");
            assert_eq!(result.text, envelope::NO_UI_TEXT);
        }
        for client in [
            None,
            Some("claude-code"),
            Some("mcp-python"),
            Some("my-codex"),
        ] {
            assert!(tool_result(&declined, client).unwrap().structured.is_some());
        }
    }

    #[test]
    fn the_agent_is_named_after_the_client() {
        let cases = [
            (Some("codex-mcp-client"), "codex"),
            (Some("claude-code"), "claude-code"),
            (Some("Cursor"), "Cursor"),
            (Some(""), "mcp"),
            (None, "mcp"),
            (Some("a,b=c"), "abc"),
        ];
        for (client, agent) in cases {
            assert_eq!(agent_of(client), agent, "{client:?}");
        }
    }
}
