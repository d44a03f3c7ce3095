//! `ask-popup ask`: the caller's side of one question. Builds the pipe's arguments, reads the
//! questionnaire, recognises the reply among whatever Zellij 0.45.1's CLI prints, and maps every
//! ending to the envelope and exit status the agent gets.

use ask_popup_protocol::envelope::{self, Envelope, ErrorCode};
use ask_popup_protocol::request::{self, RequestError};
use std::path::PathBuf;

/// The plugin the command asks when told nothing else: the alias `plugin.kdl` defines.
pub const DEFAULT_PLUGIN: &str = "ask-popup";
/// How many times one question is sent before the command gives up with `no_reply`. Zellij
/// 0.45.1 now and then ends a `zellij pipe` at once without a reply while the question still
/// reaches the plugin; asking again with the same id takes the orphan's place in the popup.
pub const ATTEMPTS: u32 = 5;
/// The longest an agent name may be in the dialog's header.
pub const MAX_AGENT_CHARS: usize = 32;

/// Exit statuses, decided with each error code's meaning (`ErrorCode::exit_status`).
pub use ask_popup_protocol::error_code::{
    EXIT_ERROR, EXIT_NO_REPLY, EXIT_NO_UI, EXIT_RESPONDED, EXIT_ZELLIJ_NOT_FOUND,
};

/// Who asks: what the plugin scopes the request to and shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The caller's `$ZELLIJ_PANE_ID`, marked while it waits.
    pub pane_id: Option<String>,
    /// The name the dialog shows.
    pub agent: Option<String>,
    /// The request id: echoed in `details.requestId`, and the key for asking again and for
    /// withdrawing.
    pub id: String,
    /// Whether the id was the caller's own (echoed in the command's own envelopes too) rather
    /// than one the command made up.
    pub id_given: bool,
    /// For an agent's permission prompt, the command that asks it (`claude-approval`,
    /// `codex-approval`, `opencode-approval`): the only askers whose `"approval": true` the
    /// command sends on, and what the record says marked the entry an approval.
    pub approval_by: Option<String>,
}

impl Caller {
    /// The `k=v,k=v` arguments of the `ask` and `cancel` pipes.
    pub fn pipe_args(&self) -> String {
        let mut args = format!(
            "pane_id={}",
            self.pane_id.as_deref().map(arg_value).unwrap_or_default()
        );
        if let Some(agent) = self
            .agent
            .as_deref()
            .map(agent_value)
            .filter(|a| !a.is_empty())
        {
            args.push_str(",agent=");
            args.push_str(&agent);
        }
        args.push_str(",id=");
        args.push_str(&ask_popup_protocol::pipe_args::encode(&self.id));
        if let Some(by) = self.approval_by.as_deref().map(arg_value) {
            args.push_str(",approval_by=");
            args.push_str(&by);
        }
        args
    }

    /// The id the command's own envelopes echo.
    fn echoed_id(&self) -> Option<&str> {
        self.id_given.then_some(self.id.as_str())
    }

    /// The envelope of an ending the command decides itself (`no_ui`, `aborted`, …).
    pub fn failure(&self, code: ErrorCode) -> String {
        envelope::host_error(code, self.echoed_id())
    }

    /// The envelope of a questionnaire the command rejects before sending it.
    pub fn rejection(&self, error: &RequestError) -> String {
        envelope::rejection(error, self.echoed_id())
    }
}

/// A value for `k=v,k=v` pipe arguments: without the separators and line breaks Zellij would
/// split on.
pub fn arg_value(value: &str) -> String {
    value
        .chars()
        .filter(|c| !matches!(c, ',' | '=' | '\n' | '\r'))
        .collect()
}

/// An agent name as the pipe carries it: an argument value of at most `MAX_AGENT_CHARS`
/// characters.
pub fn agent_value(agent: &str) -> String {
    arg_value(agent).chars().take(MAX_AGENT_CHARS).collect()
}

/// A fresh request id for a caller that gave none.
pub fn fresh_id(pid: u32, nanos: u128) -> String {
    format!("ask-{pid}-{:x}", nanos & 0xffff_ffff_ffff)
}

/// Where the questionnaire comes from: the command's one optional argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PayloadSource {
    /// The JSON itself.
    Inline(String),
    /// A file to read.
    File(PathBuf),
    /// Standard input (no argument, or `-`).
    Stdin,
}

impl PayloadSource {
    /// What the argument is: a file when one of that name exists, or when it can only be a file
    /// name (one word with a `/` or a `.`, and not JSON); otherwise the questionnaire itself, so
    /// that `[1]`, `""` or a typo in the JSON is answered with what is wrong with it as JSON, as
    /// the plugin would, rather than "No such file or directory".
    pub fn of(arg: Option<&str>, is_file: impl Fn(&str) -> bool) -> PayloadSource {
        let arg = match arg {
            None | Some("-") => return PayloadSource::Stdin,
            Some(arg) => arg,
        };
        let text = arg.trim();
        let inline = PayloadSource::Inline(arg.to_owned());
        if text.starts_with('{') {
            return inline;
        }
        if is_file(arg) {
            return PayloadSource::File(PathBuf::from(arg));
        }
        let json_like = text.is_empty()
            || text.starts_with(['[', '"'])
            || serde_json::from_str::<serde_json::Value>(text).is_ok();
        let path_like = !text.contains(char::is_whitespace) && text.contains(['/', '.']);
        if !json_like && path_like {
            PayloadSource::File(PathBuf::from(arg))
        } else {
            inline
        }
    }
}

/// Reads a questionnaire from `input`, keeping at most one byte past the limit in memory; one
/// over the limit is rejected with its whole size, counted to its end.
pub fn read_bounded(mut input: impl std::io::Read) -> Result<Vec<u8>, RequestError> {
    use std::io::Read;
    let unreadable = |e: std::io::Error| RequestError::Unreadable {
        detail: e.to_string(),
    };
    let limit = request::MAX_PAYLOAD_BYTES as u64 + 1;
    let mut bytes = Vec::new();
    input
        .by_ref()
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() <= request::MAX_PAYLOAD_BYTES {
        return Ok(bytes);
    }
    let rest = std::io::copy(&mut input, &mut std::io::sink()).map_err(unreadable)?;
    Err(RequestError::PayloadTooLarge {
        bytes: bytes
            .len()
            .saturating_add(usize::try_from(rest).unwrap_or(usize::MAX)),
    })
}

/// Checks a questionnaire as the plugin will, so a malformed call is answered without a round
/// trip through Zellij (and outside Zellij too), and returns it as the one line sent on the
/// pipe's stdin. JSON allows no raw line breaks inside strings, so outside them they become
/// spaces; a payload on stdin is not bound by the ~128 KiB limit on one argument.
///
/// `"approval": true` (an agent's permission prompt, with its stricter keys and its decision in
/// the record) is sent on only for `caller`s that are one of the approval hooks
/// (`Caller::approval_by`): `ask-popup ask`, the MCP server or a socket frame cannot dress a
/// question up as one.
pub fn prepare(payload: &[u8], caller: &Caller) -> Result<String, RequestError> {
    if payload.iter().all(u8::is_ascii_whitespace) {
        return Err(RequestError::empty());
    }
    let questionnaire = request::parse_bytes(payload)?;
    if questionnaire.approval && caller.approval_by.is_none() {
        return Err(RequestError::ApprovalNotFromHook);
    }
    let text = String::from_utf8_lossy(payload);
    Ok(text.replace(['\r', '\n'], " "))
}

/// The reply to the question with id `id` in what one `zellij pipe` printed, as the plugin wrote
/// it (one line, its newline included). Only a JSON object shaped like an envelope and carrying
/// this request's id counts: Zellij 0.45.1's CLI sometimes prints nothing, an error, or another
/// CLI call's output instead.
pub fn reply_in(stdout: &[u8], id: &str) -> Option<String> {
    let text = String::from_utf8_lossy(stdout);
    text.lines()
        .find(|line| is_envelope_for(line, id))
        .map(|line| format!("{line}\n"))
}

fn is_envelope_for(line: &str, id: &str) -> bool {
    Envelope::read(line).is_some_and(|e| e.request_id() == Some(id))
}

/// The exit status for an envelope (an unknown code is an error).
pub fn exit_status(envelope: &str) -> i32 {
    let envelope = Envelope::read(envelope);
    match envelope.as_ref().and_then(Envelope::error) {
        None => EXIT_RESPONDED,
        Some(Ok(code)) => code.exit_status(),
        Some(Err(_)) => EXIT_ERROR,
    }
}

/// Whether the `cancel` pipe's output is its answer (`{"withdrawn":N}`).
pub fn is_withdrawal(stdout: &[u8]) -> bool {
    String::from_utf8_lossy(stdout).lines().any(|line| {
        serde_json::from_str::<serde_json::Value>(line)
            .is_ok_and(|v| v.get("withdrawn").is_some_and(|n| n.is_u64()))
    })
}

/// Whether the `status` pipe's output is its answer (`{"pending":[…],"visible":…}`).
pub fn is_status(stdout: &[u8]) -> bool {
    String::from_utf8_lossy(stdout).lines().any(|line| {
        serde_json::from_str::<serde_json::Value>(line)
            .is_ok_and(|v| v.get("pending").is_some_and(|p| p.is_array()))
    })
}

/// How long to wait before attempt `attempt` (1-based) of a question: at once, then a little
/// longer each time.
pub fn backoff_ms(attempt: u32) -> u64 {
    u64::from(attempt.saturating_sub(1)) * 200
}

/// The agent name to show when the caller gave none: its parent program's name.
pub fn agent_from_parent(comm: &str) -> Option<String> {
    let name = agent_value(comm.trim());
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    const DB: &str = r#"{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres","description":"Relational"},{"label":"SQLite","description":"Embedded"}]}]}"#;

    fn caller(pane: Option<&str>, agent: Option<&str>, id: &str) -> Caller {
        Caller {
            pane_id: pane.map(str::to_owned),
            agent: agent.map(str::to_owned),
            id: id.to_owned(),
            id_given: true,
            approval_by: None,
        }
    }

    #[test]
    fn pipe_args_carry_pane_agent_and_id_without_separators() {
        let cases = [
            (
                caller(Some("3"), Some("claude"), "r1"),
                "pane_id=3,agent=claude,id=r1",
            ),
            (caller(None, None, "r1"), "pane_id=,id=r1"),
            (caller(Some("3"), Some(""), "r1"), "pane_id=3,id=r1"),
            (
                caller(Some("3"), Some("a,b=c\nd"), "x=1,y%"),
                "pane_id=3,agent=abcd,id=x=1%2Cy%25",
            ),
            (
                caller(Some("3"), None, &"i".repeat(40)),
                &format!("pane_id=3,id={}", "i".repeat(40)),
            ),
            (
                caller(Some("3"), Some(&"n".repeat(40)), "r"),
                &format!("pane_id=3,agent={},id=r", "n".repeat(32)),
            ),
        ];
        for (caller, expected) in cases {
            assert_eq!(caller.pipe_args(), expected, "{caller:?}");
        }
    }

    #[test]
    fn the_argument_is_json_a_file_or_stdin() {
        let exists = |path: &str| ["q.json", "questions", "[1]"].contains(&path);
        let of = |arg| PayloadSource::of(arg, exists);
        let inline = |arg: &str| PayloadSource::Inline(arg.to_owned());
        let file = |arg: &str| PayloadSource::File(arg.into());
        let cases = [
            (None, PayloadSource::Stdin),
            (Some("-"), PayloadSource::Stdin),
            (Some(DB), inline(DB)),
            (Some("  {\"questions\":[]}"), inline("  {\"questions\":[]}")),
            (Some("q.json"), file("q.json")),
            (Some("questions"), file("questions")),
            (Some("missing.json"), file("missing.json")),
            (Some("dir/q"), file("dir/q")),
            // A file of that name wins over JSON, except for an object.
            (Some("[1]"), file("[1]")),
            (Some("[2]"), inline("[2]")),
            (Some(""), inline("")),
            (Some("  "), inline("  ")),
            (Some("\"Which?\""), inline("\"Which?\"")),
            (Some("1.5"), inline("1.5")),
            (Some("null"), inline("null")),
            (Some("not json"), inline("not json")),
            (Some("questions: [1]"), inline("questions: [1]")),
        ];
        for (arg, expected) in cases {
            assert_eq!(of(arg), expected, "{arg:?}");
        }
    }

    #[test]
    fn a_questionnaire_that_is_not_an_object_is_told_what_is_wrong_with_it() {
        let cases = [
            (
                "[1]",
                "must be a JSON object with a \"questions\" array, got an array",
            ),
            ("", "the payload was empty"),
            ("  \n", "the payload was empty"),
            ("not json", "is not valid JSON"),
        ];
        for (payload, says) in cases {
            let error = prepare(payload.as_bytes(), &caller(None, None, "r")).expect_err(payload);
            assert!(error.to_string().contains(says), "{payload:?}: {error}");
            assert_eq!(error.code(), ErrorCode::InvalidPayload, "{payload:?}");
        }
    }

    #[test]
    fn a_questionnaire_over_the_limit_is_rejected_with_its_whole_size() {
        let max = request::MAX_PAYLOAD_BYTES;
        for size in [0, 10, max, max + 1, max + 78_000] {
            let read = read_bounded(std::io::repeat(b' ').take(size as u64));
            if size <= max {
                assert_eq!(read.map(|b| b.len()), Ok(size));
            } else {
                assert_eq!(read, Err(RequestError::PayloadTooLarge { bytes: size }));
            }
        }
    }

    #[test]
    fn only_an_approval_hook_sends_an_approval_on_and_names_itself() {
        let approval = r#"{"approval":true,"questions":[{"question":"Allow claude to use Bash: rm -rf /?","header":"Bash","options":["Allow once","Deny"]}]}"#;
        // `ask-popup ask`, the MCP server, a socket frame: refused, as a fault of the request.
        let asked = caller(Some("3"), Some("claude"), "r");
        let error = prepare(approval.as_bytes(), &asked).expect_err("not from a hook");
        assert_eq!(error, RequestError::ApprovalNotFromHook);
        assert_eq!(error.code(), ErrorCode::InvalidPayload);
        assert!(!asked.pipe_args().contains("approval_by"));
        // The approval hooks: sent on, the pipe naming the command.
        let hook = Caller {
            approval_by: Some("claude-approval".to_owned()),
            ..asked
        };
        assert!(prepare(approval.as_bytes(), &hook).is_ok());
        assert_eq!(
            hook.pipe_args(),
            "pane_id=3,agent=claude,id=r,approval_by=claude-approval"
        );
    }

    #[test]
    fn a_pretty_payload_is_sent_as_one_line() {
        let pretty = "{\r\n  \"questions\": [{\"question\": \"Which database?\", \"header\": \"DB\",\n \"options\": [\"Postgres\", \"SQLite\"]}]\n}\n";
        let line = prepare(pretty.as_bytes(), &caller(None, None, "r")).expect("valid");
        assert!(!line.contains('\n') && !line.contains('\r'));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&line).unwrap(),
            serde_json::from_str::<serde_json::Value>(pretty).unwrap()
        );
    }

    #[test]
    fn an_invalid_payload_is_rejected_with_the_plugins_code_and_text() {
        let question = |i| serde_json::json!({"question": format!("Q{i}?"), "header": "H", "options": ["A", "B"]});
        let five = serde_json::json!({"questions": (0..5).map(question).collect::<Vec<_>>()});
        let error = prepare(five.to_string().as_bytes(), &caller(None, None, "r"))
            .expect_err("five questions");
        let envelope = caller(None, None, "r9").rejection(&error);
        assert_eq!(envelope, envelope::rejection(&error, Some("r9")));
        let read = Envelope::read(&envelope).expect("an envelope");
        assert_eq!(read.error(), Some(Ok(ErrorCode::TooManyQuestions)));
        assert_eq!(exit_status(&envelope), EXIT_ERROR);
    }

    #[test]
    fn only_an_envelope_with_this_requests_id_counts_as_the_reply() {
        let ours = envelope::host_error(ErrorCode::Dismissed, Some("r1"));
        let theirs = envelope::host_error(ErrorCode::Dismissed, Some("r2"));
        let noisy = format!("[1,2]\n{ours}");
        let cases: [(&str, &[u8], Option<&str>); 7] = [
            ("empty", b"", None),
            ("an error", b"There is no active session!\n", None),
            (
                "another call's output",
                b"[{\"id\":1,\"title\":\"x\"}]\n",
                None,
            ),
            ("not an envelope", b"{\"pending\":[]}\n", None),
            ("another request's envelope", theirs.as_bytes(), None),
            ("ours", ours.as_bytes(), Some(&ours)),
            ("ours after noise", noisy.as_bytes(), Some(&ours)),
        ];
        for (what, stdout, expected) in cases {
            assert_eq!(reply_in(stdout, "r1").as_deref(), expected, "{what}");
        }
    }

    #[test]
    fn every_ending_has_its_exit_status() {
        let c = caller(None, None, "r1");
        let cases = [
            (envelope::host_error(ErrorCode::Dismissed, None), EXIT_ERROR),
            (c.failure(ErrorCode::Aborted), EXIT_ERROR),
            (c.failure(ErrorCode::NoUi), EXIT_NO_UI),
            (c.failure(ErrorCode::ZellijNotFound), EXIT_ZELLIJ_NOT_FOUND),
            (c.failure(ErrorCode::NoReply), EXIT_NO_REPLY),
            (
                "{\"content\":[{\"type\":\"text\",\"text\":\"User declined to answer questions\"}],\"details\":{\"answers\":[],\"cancelled\":true}}\n".to_owned(),
                EXIT_RESPONDED,
            ),
        ];
        for (envelope, status) in cases {
            assert_eq!(exit_status(&envelope), status, "{envelope}");
        }
    }

    #[test]
    fn the_commands_own_envelopes_echo_only_an_id_the_caller_gave() {
        let mut c = caller(None, None, "ask-1-2");
        c.id_given = false;
        assert_eq!(
            c.failure(ErrorCode::NoUi),
            format!(
                "{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}],\"details\":{{\"answers\":[],\"cancelled\":true,\"error\":\"no_ui\"}}}}\n",
                envelope::NO_UI_TEXT
            )
        );
        c.id_given = true;
        let failure = c.failure(ErrorCode::NoUi);
        let read = Envelope::read(&failure).expect("an envelope");
        assert_eq!(read.error(), Some(Ok(ErrorCode::NoUi)));
        assert!(c
            .failure(ErrorCode::NoUi)
            .contains("\"requestId\":\"ask-1-2\""));
    }

    #[test]
    fn withdrawal_and_status_answers_are_recognised() {
        assert!(is_withdrawal(b"{\"withdrawn\":1}\n"));
        assert!(is_withdrawal(b"{\"withdrawn\":0}\n"));
        assert!(!is_withdrawal(b""));
        assert!(!is_withdrawal(b"There is no active session!\n"));
        assert!(is_status(b"{\"pending\":[],\"visible\":false}\n"));
        assert!(!is_status(b"[]\n"));
    }

    #[test]
    fn names_and_ids() {
        assert_eq!(agent_from_parent("claude\n").as_deref(), Some("claude"));
        assert_eq!(agent_from_parent("  \n"), None);
        assert_eq!(fresh_id(42, 0xabc), "ask-42-abc");
        assert_eq!(backoff_ms(1), 0);
        assert_eq!(backoff_ms(3), 400);
    }
}
