//! `ask-popup mcp`: what the MCP server decides, apart from speaking the protocol. The tool's
//! result is the envelope (its text as content, its details as structured content, an error
//! when it carries one), and the popup names the asking agent after the MCP client.

use crate::command::ask::agent_value;
use serde_json::Value;

/// The tool's result, from the envelope the popup (or the command) wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    /// What the model reads: the envelope's text.
    pub text: String,
    /// The envelope's `details`.
    pub details: Value,
    /// Whether the envelope carries an `error` (a validation error, a timeout, or the popup
    /// unable to answer).
    pub is_error: bool,
}

/// The tool result for `envelope`; `None` if it is not one.
pub fn tool_result(envelope: &str) -> Option<ToolResult> {
    let envelope: Value = serde_json::from_str(envelope).ok()?;
    let text = envelope["content"][0]["text"].as_str()?.to_owned();
    let details = envelope.get("details")?.clone();
    let is_error = details.get("error").is_some();
    Some(ToolResult {
        text,
        details,
        is_error,
    })
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
        let result = tool_result(&answered).expect("an envelope");
        assert_eq!(
            result.text,
            "User has answered your questions: \"Which?\"=\"A\". You can now continue with the user's answers in mind."
        );
        assert_eq!(result.details["answers"][0]["answer"], "A");
        assert!(!result.is_error);

        let declined = envelope::outcome(
            &questionnaire,
            &Outcome::Declined(Responses::empty(1)),
            None,
        );
        assert!(!tool_result(&declined).unwrap().is_error);

        for code in [ErrorCode::NoUi, ErrorCode::Dismissed, ErrorCode::TimedOut] {
            let result = tool_result(&envelope::host_error(code, None)).unwrap();
            assert!(result.is_error, "{code:?}");
            assert_eq!(result.text, envelope::host_text(code));
        }
        let rejected = request::parse("{}").unwrap_err();
        let result = tool_result(&envelope::rejection(&rejected, None)).unwrap();
        assert!(result.is_error);
        assert_eq!(result.text, rejected.to_string());
        assert_eq!(tool_result("nonsense"), None);
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
