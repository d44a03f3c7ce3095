//! One inbox: a question shown in every session a person is attached to. Where a question goes
//! (`routes`), the copies sent there (`copies`), and the notes of questions waiting where
//! nobody sees them (`notes`).

pub mod copies;
pub mod notes;
pub mod routes;

pub use notes::*;
