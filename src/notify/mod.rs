//! The notification of a question left waiting: the settings and what it says (`settings`),
//! and its timer and command (`notice`).

pub mod notice;
pub mod settings;

pub use settings::*;
