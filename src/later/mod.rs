//! Asking without waiting: what is kept and where a request stands (`mark`), and the commands
//! (`command`: `ask --no-wait`, the process that waits in its place, `ask-popup answer`).

pub mod command;
pub mod mark;

pub use mark::*;
