//! The `error` codes an envelope can carry, below both the request parser (which rejects with
//! them) and the envelope (which writes them): imports run request → error_code ← envelope.

/// Every `error` code an envelope can carry: validation, the timer, the host, and the agent's
/// side (the `ask-popup` command, which answers for the plugin when it cannot be reached).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    InvalidPayload,
    PayloadTooLarge,
    NoQuestions,
    TooManyQuestions,
    DuplicateQuestion,
    EmptyOptions,
    TooManyOptions,
    ReservedLabel,
    DuplicateOptionLabel,
    HeaderTooLong,
    LabelTooLong,
    InvalidTimeout,
    TimedOut,
    Dismissed,
    Superseded,
    Aborted,
    Busy,
    NoUi,
    NoCustomUi,
    ZellijNotFound,
    NoReply,
}

impl ErrorCode {
    pub const fn as_str(self) -> &'static str {
        use ErrorCode::*;
        match self {
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
    }
}
