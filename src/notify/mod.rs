//! The notification of a question left waiting: the settings (`settings`), the document the
//! notify command reads (`document`), the notification in the asking pane's terminal
//! (`terminal_notice`), the timer and command (`notice`), and the desktop notification with
//! actions that takes the terminal one's place where a notification server shows them
//! (`desktop`, `desktop_bus`, `desktop_notice`).

pub mod desktop;
pub mod desktop_bus;
pub mod desktop_notice;
pub mod document;
pub mod notice;
pub mod settings;
pub mod terminal_notice;

pub use document::*;
pub use settings::*;
pub use terminal_notice::*;
