//! The `error` codes an envelope can carry, below both the request parser (which rejects with
//! them) and the envelope (which writes them): imports run request → error_code ← envelope.

/// Declares `ErrorCode` with each code's wire text, once: the enum, `ALL` and `as_str`.
macro_rules! error_codes {
    ($($code:ident => $text:literal,)*) => {
        /// Every `error` code an envelope can carry: validation, the timer, the host, and the
        /// agent's side (the `ask-popup` command, which answers for the plugin when it cannot be
        /// reached).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($code,)*
        }

        impl ErrorCode {
            /// Every code, in the order declared.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$code,)*];

            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$code => $text,)*
                }
            }
        }
    };
}

error_codes! {
    InvalidPayload => "invalid_payload",
    PayloadTooLarge => "payload_too_large",
    NoQuestions => "no_questions",
    TooManyQuestions => "too_many_questions",
    DuplicateQuestion => "duplicate_question",
    EmptyOptions => "empty_options",
    TooManyOptions => "too_many_options",
    ReservedLabel => "reserved_label",
    DuplicateOptionLabel => "duplicate_option_label",
    HeaderTooLong => "header_too_long",
    LabelTooLong => "label_too_long",
    InvalidTimeout => "invalid_timeout",
    TimedOut => "timed_out",
    Dismissed => "dismissed",
    Superseded => "superseded",
    Aborted => "aborted",
    Busy => "busy",
    NoUi => "no_ui",
    NoCustomUi => "no_custom_ui",
    ZellijNotFound => "zellij_not_found",
    NoReply => "no_reply",
}

impl ErrorCode {
    /// The code written `code`, if it is one.
    pub fn parse(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.iter().copied().find(|c| c.as_str() == code)
    }
}

/// What an `error` tells the agent that asked, decided once here: the `ask-popup` command's
/// exit status, Claude Code's hook, the Pi extension and the opencode plugin (through their
/// generated shared data) all read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// The request broke a rule and nobody was asked: the agent fixes it and asks again.
    FixTheRequest,
    /// The popup could not reach the user: not inside Zellij, no `zellij`, no reply from the
    /// plugin, too many questions waiting, or the popup closed before an answer. The user
    /// never saw a decline; the agent's own dialog asks instead (or the model asks in chat).
    AskElsewhere,
    /// The question is over without an answer, as the agent set it up or caused it: its
    /// timeout ran out, it withdrew the question, a newer call with its id took over, or it
    /// has no dialog at all. Asking again elsewhere would ask what is no longer wanted.
    Over,
}

/// The command's exit statuses: answered (a submission, a decline or a chat request)…
pub const EXIT_RESPONDED: i32 = 0;
/// …any other error envelope…
pub const EXIT_ERROR: i32 = 1;
/// …not inside Zellij…
pub const EXIT_NO_UI: i32 = 3;
/// …no `zellij` on PATH…
pub const EXIT_ZELLIJ_NOT_FOUND: i32 = 4;
/// …no reply from the plugin: a script can tell these three apart from an answer.
pub const EXIT_NO_REPLY: i32 = 5;

impl ErrorCode {
    /// What the code tells the agent (see `Next`).
    pub const fn next(self) -> Next {
        use ErrorCode::*;
        match self {
            InvalidPayload | PayloadTooLarge | NoQuestions | TooManyQuestions
            | DuplicateQuestion | EmptyOptions | TooManyOptions | ReservedLabel
            | DuplicateOptionLabel | HeaderTooLong | LabelTooLong | InvalidTimeout => {
                Next::FixTheRequest
            }
            NoUi | ZellijNotFound | NoReply | Busy | Dismissed => Next::AskElsewhere,
            TimedOut | Superseded | Aborted | NoCustomUi => Next::Over,
        }
    }

    /// The `ask-popup` command's exit status for an envelope with this code: the three ways
    /// the popup was out of reach that a script can act on have their own; everything else is
    /// an error.
    pub const fn exit_status(self) -> i32 {
        match self {
            ErrorCode::NoUi => EXIT_NO_UI,
            ErrorCode::ZellijNotFound => EXIT_ZELLIJ_NOT_FOUND,
            ErrorCode::NoReply => EXIT_NO_REPLY,
            _ => EXIT_ERROR,
        }
    }
}

/// How an agent with a dialog of its own uses it after an error: always when the popup could
/// not reach the user (`Next::AskElsewhere`), never when the question is over (`Next::Over`);
/// after a refused request only where its own dialog takes requests the popup refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fallback {
    /// The agent's own dialog shows requests the popup refuses.
    pub on_refused_request: bool,
}

impl Fallback {
    /// Claude Code checks AskUserQuestion's input by its own rules, which the popup's stricter
    /// limits (a 16-character header, 60-character labels) can refuse: its dialog asks then.
    pub const CLAUDE_CODE: Fallback = Fallback {
        on_refused_request: true,
    };
    /// The Pi extension checks the request by the popup's own rules before it asks: a refused
    /// request goes back to the model to fix.
    pub const PI: Fallback = Fallback {
        on_refused_request: false,
    };
    /// opencode's `question` tool takes questions the popup refuses (headers up to 30
    /// characters, any number of options), and opencode's own dialog is open already while the
    /// popup asks: it asks then.
    pub const OPENCODE: Fallback = Fallback {
        on_refused_request: true,
    };

    /// Codex's `request_user_input` takes questions the popup refuses (questions without
    /// options, any header): its own dialog asks then.
    pub const CODEX: Fallback = Fallback {
        on_refused_request: true,
    };

    /// Whether the agent's own dialog asks after `code`.
    pub const fn after(self, code: ErrorCode) -> bool {
        match code.next() {
            Next::AskElsewhere => true,
            Next::FixTheRequest => self.on_refused_request,
            Next::Over => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_reads_back_as_itself() {
        for &code in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
        }
        assert_eq!(ErrorCode::parse("nope"), None);
    }

    /// Each code's meaning, pinned: what the agent does next, its exit status, and whether
    /// Claude Code's and Pi's own dialogs ask instead (opencode's and Codex's as Claude Code's).
    #[test]
    fn every_code_has_one_meaning_for_every_agent() {
        use ErrorCode::*;
        use Next::*;
        let table: [(ErrorCode, Next, i32, bool, bool); 21] = [
            (InvalidPayload, FixTheRequest, 1, true, false),
            (PayloadTooLarge, FixTheRequest, 1, true, false),
            (NoQuestions, FixTheRequest, 1, true, false),
            (TooManyQuestions, FixTheRequest, 1, true, false),
            (DuplicateQuestion, FixTheRequest, 1, true, false),
            (EmptyOptions, FixTheRequest, 1, true, false),
            (TooManyOptions, FixTheRequest, 1, true, false),
            (ReservedLabel, FixTheRequest, 1, true, false),
            (DuplicateOptionLabel, FixTheRequest, 1, true, false),
            (HeaderTooLong, FixTheRequest, 1, true, false),
            (LabelTooLong, FixTheRequest, 1, true, false),
            (InvalidTimeout, FixTheRequest, 1, true, false),
            (TimedOut, Over, 1, false, false),
            (Dismissed, AskElsewhere, 1, true, true),
            (Superseded, Over, 1, false, false),
            (Aborted, Over, 1, false, false),
            (Busy, AskElsewhere, 1, true, true),
            (NoUi, AskElsewhere, 3, true, true),
            (NoCustomUi, Over, 1, false, false),
            (ZellijNotFound, AskElsewhere, 4, true, true),
            (NoReply, AskElsewhere, 5, true, true),
        ];
        assert_eq!(table.map(|row| row.0).as_slice(), ErrorCode::ALL);
        for (code, next, exit, claude, pi) in table {
            assert_eq!(code.next(), next, "{code:?}");
            assert_eq!(code.exit_status(), exit, "{code:?}");
            assert_eq!(Fallback::CLAUDE_CODE.after(code), claude, "{code:?}");
            assert_eq!(Fallback::PI.after(code), pi, "{code:?}");
            assert_eq!(Fallback::OPENCODE.after(code), claude, "{code:?}");
            assert_eq!(Fallback::CODEX.after(code), claude, "{code:?}");
        }
    }
}
