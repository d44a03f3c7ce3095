//! `ask-popup ask`: the caller's decisions (`caller`), the command (`command`), the ask loop in a
//! session's popup (`waiting`), and what stops a waiting question (`stop`); and `ask-popup
//! blocked`, an agent's wait in a dialog of its own (`blocked`).

pub mod blocked;
pub mod caller;
pub mod command;
pub mod stop;
pub mod waiting;

pub use caller::*;
