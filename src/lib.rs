//! ask-popup's core: the questionnaire protocol, the result envelope, the dialog and its
//! rendering. Pure Rust with no Zellij types, so everything here is tested on the host.
pub mod envelope;
pub mod request;
pub mod view;
