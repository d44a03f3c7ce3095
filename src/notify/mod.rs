//! The notification of a question left waiting: the settings (`settings`), the document the
//! notify command reads (`document`), the notification in the asking pane's terminal
//! (`terminal_notice`), and the timer and command (`notice`).

pub mod document;
pub mod notice;
pub mod settings;
pub mod terminal_notice;

pub use document::*;
pub use settings::*;
pub use terminal_notice::*;
