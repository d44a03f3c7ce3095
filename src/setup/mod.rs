//! `ask-popup setup` and `ask-popup doctor`: every agent's wiring (`agents`, `opencode`), Zellij's
//! config (`zellij_config`), its web client (`web`, `web_command`), JSON settings edited as
//! documents (`json_document`), the files written (`install`), and the checks (`doctor`).

pub mod agents;
pub mod doctor;
pub mod install;
pub mod json_document;
pub mod opencode;
pub mod web;
pub mod web_command;
pub mod zellij_config;

pub use agents::*;
