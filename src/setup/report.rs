//! What setup says of a change to a file or folder: without `--write` what it would do, once done
//! what it did, and when it fails, why.

use std::io;
use std::path::Path;

/// A change setup makes, as it is said before and after.
pub struct Change {
    /// Said without `--write`.
    would: String,
    /// Said once it is done.
    did: String,
}

impl Change {
    /// `what` written to `to`: "Would write {what} to {to}", then "Wrote {what} to {to}".
    pub fn write(what: &str, to: &Path) -> Change {
        Change {
            would: format!("Would write {what} to {}", to.display()),
            did: format!("Wrote {what} to {}", to.display()),
        }
    }

    /// `what` deleted: "Would delete {what}", then "Deleted {what}".
    pub fn delete(what: impl std::fmt::Display) -> Change {
        Change {
            would: format!("Would delete {what}"),
            did: format!("Deleted {what}"),
        }
    }

    /// Said in its own words: `would` without `--write`, `did` once done.
    pub fn said(would: String, did: String) -> Change {
        Change { would, did }
    }

    /// Without `write`, says what it would do; with it, does it (`act`) and says what it did, or
    /// why it could not, as `ask-popup setup {agent}: {error}`. The exit status: 1 when it
    /// failed.
    pub fn make(self, agent: &str, write: bool, act: impl FnOnce() -> io::Result<()>) -> i32 {
        if !write {
            say!("{}", self.would);
            return 0;
        }
        match act() {
            Ok(()) => {
                say!("{}", self.did);
                0
            }
            Err(e) => {
                say_err!("ask-popup setup {agent}: {e}");
                1
            }
        }
    }
}
