//! `ask-popup mcp`: what the MCP server decides, apart from speaking the protocol. The tool's
//! result is the envelope's text, alone (an error when the envelope carries one), the popup names
//! the asking agent after the MCP client, and a waiting call tells the client it is alive.
//!
//! Why the text alone: the text is what the model must read (what the user chose, to stop on
//! "Chat about this", that a timeout is not a decline), and clients differ in what they hand the
//! model when a result also has structured content: Codex 0.171 and Claude Code 2.1.332 give it
//! the structured content's JSON *in place of* the text. The tool declares no output schema, so
//! the protocol asks for no structured content, and every client hands its model the text.

use crate::ask::agent_value;
use ask_popup_protocol::envelope::Envelope;

/// How often a waiting call sends a progress notification (when the client gave a progress
/// token): often enough for clients that reset their request timeout on progress.
pub const PROGRESS_EVERY_S: u64 = 5;

/// The tool's result, from the envelope the popup (or the command) wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    /// What the model reads: the envelope's text, byte for byte.
    pub text: String,
    /// Whether the envelope carries an `error` (a validation error, a timeout, or the popup
    /// unable to answer).
    pub is_error: bool,
}

/// The tool result for `envelope`; `None` if it is not an envelope.
pub fn tool_result(envelope: &str) -> Option<ToolResult> {
    let envelope = Envelope::read(envelope)?;
    Some(ToolResult {
        text: envelope.text().to_owned(),
        is_error: envelope.details.error.is_some(),
    })
}

/// The progress notification's message while the call waits `waited_s` seconds for the user.
pub fn progress_message(waited_s: u64) -> String {
    format!("Waiting for the user to answer in the popup ({waited_s} s so far)")
}

/// The name the popup shows for an MCP client: its `clientInfo.name` without the usual
/// `-mcp-client` or `-code` tail (`codex-mcp-client` → `codex`, `claude-code` → `claude`), or
/// `mcp` when it gave none.
pub fn agent_of(client_name: Option<&str>) -> String {
    let name = client_name.unwrap_or("").trim();
    let name = ["-mcp-client", "_mcp_client", " mcp client", "-mcp", "-code"]
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
    use ask_popup_protocol::envelope::{self, ErrorCode, Outcome, Responses};
    use ask_popup_protocol::request;

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
            result,
            ToolResult {
                text: "User has answered your questions: \"Which?\"=\"A\". You can now continue with the user's answers in mind.".to_owned(),
                is_error: false,
            }
        );

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
        assert_eq!(
            tool_result(r#"{"content":[{"text":"t"}],"details":1}"#),
            None
        );
    }

    #[test]
    fn the_agent_is_named_after_the_client() {
        let cases = [
            (Some("codex-mcp-client"), "codex"),
            (Some("claude-code"), "claude"),
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
