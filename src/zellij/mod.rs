//! Zellij as the command reaches it: its CLI (`programs`), the `zellij pipe` client (`pipe`),
//! child processes (`process`, `children`), and its sessions (`session`).

pub mod children;
pub mod pipe;
pub mod process;
pub mod programs;
pub mod session;
