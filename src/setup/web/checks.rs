//! The doctor's checks of the web client.

use super::config::{WebConfig, SETUP};
use super::tokens::{answering, ServerStatus, Token, REBUILD};
use crate::setup::check::Check;

/// `doctor`'s checks of the web client: the config (None: no config file), the server's
/// status, and the login tokens (None: they could not be listed).
pub fn checks(
    config: Option<&WebConfig>,
    status: ServerStatus,
    tokens: Option<&[Token]>,
) -> Vec<Check> {
    const CHECK: &str = "web client";
    let Some(config) = config.filter(|c| c.is_on()) else {
        return vec![Check::skip(
            CHECK,
            format!("not set up: `{SETUP}` lets you answer from a browser"),
        )];
    };
    let base = config.base_url();
    let mut checks = vec![match status {
        ServerStatus::NotBuiltIn => Check::fail(
            CHECK,
            "this zellij was built without its web server",
            REBUILD,
        ),
        ServerStatus::Offline => Check::fail(
            CHECK,
            format!("the web server does not answer at {base}"),
            "zellij web --start --daemonize (a new session starts it too)",
        ),
        ServerStatus::Online => Check::pass(CHECK, format!("the web server answers at {base}")),
    }];
    if status != ServerStatus::NotBuiltIn {
        const LOGIN: &str = "web login";
        const FIX: &str =
            "ask-popup setup web --write (in a terminal: Zellij shows a new token only once)";
        checks.push(match tokens {
            Some([]) => Check::fail(LOGIN, "no login token: a browser cannot log in", FIX),
            Some(tokens) => match answering(tokens) {
                0 => Check::fail(
                    LOGIN,
                    "read-only login tokens only: a browser can watch but not answer",
                    FIX,
                ),
                n => Check::pass(LOGIN, format!("{n} login token(s)")),
            },
            None => Check::skip(LOGIN, "the tokens could not be listed"),
        });
    }
    checks
}
