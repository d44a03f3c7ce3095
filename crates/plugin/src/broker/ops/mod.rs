//! What the broker does: its operations, which need the whole `Broker` (`state.rs`), one file
//! per part. They sit above the parts' own states (`broker/*.rs`), which know nothing of them:
//! the imports run one way, from here down.

mod arrival;
mod gate;
mod history;
mod peers;
mod pick;
mod pipe;
mod queue;
mod record;
mod screen;
mod waits;
