//! `ask-popup ask`: the caller's decisions (`caller`), the command (`command`), the ask loop in a
//! session's popup (`waiting`), and what stops a waiting question (`stop`).

pub mod caller;
pub mod command;
pub mod stop;
pub mod waiting;

pub use caller::*;
