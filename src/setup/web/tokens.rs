//! The login tokens and the server `setup web` makes, remembered so that `--remove` takes
//! them away again; the server's status, and what went wrong.

use super::config::{online_base, SETUP};
use crate::setup::hook::shell_word;
use serde::{Deserialize, Serialize};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// A login token `zellij web --create-token` made: its name, and the token, which Zellij shows
/// this once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewToken {
    pub name: String,
    pub token: String,
}

/// The token in what `zellij web --create-token` printed (`token_1: <token>`, after a line
/// saying it was created). Zellij 0.45.1 names it `token_<how many there are + 1>` itself: its
/// `--token-name` cannot be given with `--create-token` (both are parsed as exclusive).
pub fn token_in(printed: &str) -> Option<NewToken> {
    printed.lines().find_map(|line| {
        let (name, token) = line.split_once(": ")?;
        let (name, token) = (name.trim(), token.trim());
        let one_word = |w: &str| !w.is_empty() && !w.contains(char::is_whitespace);
        (one_word(name) && one_word(token)).then(|| NewToken {
            name: name.to_owned(),
            token: token.to_owned(),
        })
    })
}

/// A login token as `zellij web --list-tokens` lists it (`<name>: created at <time>`, then
/// ` [READ-ONLY]` for a token that only watches).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub name: String,
    pub created_at: String,
    /// Logs in to watch a session only: such a browser cannot answer a question.
    pub read_only: bool,
}

/// The tokens `zellij web --list-tokens` listed.
pub fn tokens_in(printed: &str) -> Vec<Token> {
    printed
        .lines()
        .filter_map(|line| {
            let (name, rest) = line.split_once(": created at ")?;
            let (created_at, read_only) = match rest.trim().strip_suffix("[READ-ONLY]") {
                Some(created_at) => (created_at.trim(), true),
                None => (rest.trim(), false),
            };
            Some(Token {
                name: name.trim().to_owned(),
                created_at: created_at.to_owned(),
                read_only,
            })
        })
        .collect()
}

/// How many of `tokens` log a browser in to answer (not only to watch).
pub fn answering(tokens: &[Token]) -> usize {
    tokens.iter().filter(|t| !t.read_only).count()
}

/// Where `setup web` remembers what it made, under the XDG state dir: the login tokens it
/// created and whether it started the server, for `--remove` to take away exactly those.
pub const STATE_FILE: &str = "ask-popup/web.json";

/// The state file's path: under `$XDG_STATE_HOME` when that variable holds an absolute path
/// (the XDG spec ignores any other), else under `$HOME/.local/state`.
pub fn state_path(xdg_state_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
    crate::xdg::path_of(xdg_state_home, home, ".local/state", STATE_FILE)
}

/// What `setup web` made, as its state file keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Made {
    pub tokens: Vec<MadeToken>,
    /// `setup web` found the server down and started it.
    pub started_server: bool,
}

/// A login token `setup web` made. Zellij names tokens by their count, so a name can come back
/// for another token after a revoke: the creation time, when known, tells them apart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MadeToken {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}

impl Made {
    /// Nothing to remember: the state file can go.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty() && !self.started_server
    }

    /// From the state file's text.
    pub fn read(text: &str, path: &str) -> Result<Made, WebError> {
        serde_json::from_str(text).map_err(|e| WebError::StateUnreadable {
            path: path.to_owned(),
            reason: e.to_string(),
        })
    }

    /// The state file's text.
    pub fn file(&self) -> String {
        format!(
            "{}\n",
            serde_json::to_string_pretty(self).unwrap_or_default()
        )
    }

    /// Remembers `new`, made just now, as `listed` (listed after it was made; empty when the
    /// list failed) shows it.
    pub fn add(&mut self, new: &NewToken, listed: &[Token]) {
        let created_at = listed
            .iter()
            .find(|t| t.name == new.name)
            .map(|t| t.created_at.clone());
        self.tokens.push(MadeToken {
            name: new.name.clone(),
            created_at,
        });
    }

    /// Whether `token` (listed) is one this remembers.
    fn made(&self, token: &Token) -> bool {
        self.tokens.iter().any(|m| {
            m.name == token.name
                && m.created_at
                    .as_ref()
                    .is_none_or(|created| *created == token.created_at)
        })
    }
}

/// The command that makes a new login token and shows it, for a terminal (`config_dir`: the
/// `--config-dir` given, to give again).
pub fn new_token_command(config_dir: Option<&Path>) -> String {
    let mut command = format!("{SETUP} --new-token");
    if let Some(dir) = config_dir {
        command.push_str(" --config-dir ");
        command.push_str(&shell_word(&dir.display().to_string()));
    }
    command
}

/// What `setup web --write` does about login tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenPlan {
    /// Tokens a browser answers with exist (this many): none is made.
    Keep(usize),
    /// Make one, and print it.
    Create,
    /// One is wanted, but stdout is not a terminal: a token printed there would stay in a log
    /// or an agent's transcript, and one not printed is lost (Zellij shows it once). Say the
    /// command to run in a terminal instead.
    InTerminal,
}

/// What to do about login tokens, given those Zellij lists, whether a new one was asked for
/// (`--new-token`), and whether stdout is a terminal.
pub fn token_plan(listed: &[Token], new_token: bool, terminal: bool) -> TokenPlan {
    match answering(listed) {
        n if n > 0 && !new_token => TokenPlan::Keep(n),
        _ if terminal => TokenPlan::Create,
        _ => TokenPlan::InTerminal,
    }
}

impl TokenPlan {
    /// What setup says of a plan it does not carry out by making a token (None: `Create`).
    /// `command`: `new_token_command`.
    pub fn said(&self, command: &str) -> Option<String> {
        match self {
            TokenPlan::Keep(n) => Some(format!(
                "{n} login token(s) exist already, so none was made (a new one: `{command}`, in a terminal)"
            )),
            TokenPlan::Create => None,
            TokenPlan::InTerminal => Some(format!(
                "No login token was made: Zellij shows a token only once, and this is not a terminal. To make one, run in a terminal: {command}"
            )),
        }
    }
}

/// The line that shows a token just made.
pub fn token_shown(new: &NewToken) -> String {
    format!(
        "Login token {} (Zellij shows it this once; keep it): {}",
        new.name, new.token
    )
}

/// One thing `setup web --remove` takes away.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Revoke the login token of this name (`zellij web --revoke-token NAME`).
    Revoke(String),
    /// Stop the web server (`zellij web --stop`).
    StopServer,
}

impl Step {
    /// What `--remove` without `--write` says it would do.
    pub fn would(&self) -> String {
        format!("Would {}", self.what())
    }

    /// What `--remove --write` says it did.
    pub fn done(&self) -> String {
        match self {
            Step::Revoke(name) => format!("Revoked the login token {name} ({BY_SETUP} made it)"),
            Step::StopServer => format!("Stopped the web server ({BY_SETUP} started it)"),
        }
    }

    fn what(&self) -> String {
        match self {
            Step::Revoke(name) => format!("revoke the login token {name} ({BY_SETUP} made it)"),
            Step::StopServer => format!("stop the web server ({BY_SETUP} started it)"),
        }
    }
}

const BY_SETUP: &str = "`ask-popup setup web`";

/// What `setup web --remove` does of what setup made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Removal {
    pub steps: Vec<Step>,
    /// What stays remembered once every step is done: the tokens that could not be looked for
    /// (`listed` was None: the list failed).
    pub left: Made,
}

impl Removal {
    /// What stays remembered of `made` after the steps, `failed` those that failed (tried again
    /// by the next removal).
    pub fn left_after(&self, made: &Made, failed: &[Step]) -> Made {
        let mut left = self.left.clone();
        for step in failed {
            match step {
                Step::Revoke(name) => left
                    .tokens
                    .extend(made.tokens.iter().filter(|m| m.name == *name).cloned()),
                Step::StopServer => left.started_server = true,
            }
        }
        left
    }
}

/// What to take away, given what setup made, the tokens Zellij lists (None: it could not
/// list them) and the server's status: the made tokens still there are revoked (one that is
/// gone is forgotten; a token by that name made since, by anyone, is not setup's and stays),
/// and the server is stopped when setup started it and it runs.
pub fn removal(made: &Made, listed: Option<&[Token]>, status: ServerStatus) -> Removal {
    let mut removal = Removal::default();
    match listed {
        Some(listed) => removal.steps.extend(
            listed
                .iter()
                .filter(|t| made.made(t))
                .map(|t| Step::Revoke(t.name.clone())),
        ),
        None => removal.left.tokens = made.tokens.clone(),
    }
    if made.started_server && status == ServerStatus::Online {
        removal.steps.push(Step::StopServer);
    }
    removal
}

/// Why `setup web` could not do all it was asked.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum WebError {
    #[error("cannot run zellij")]
    NoZellij,
    #[error("this zellij was built without its web server: {REBUILD}")]
    NotBuiltIn,
    #[error("zellij web --start failed: {0}")]
    StartFailed(String),
    #[error("zellij web --list-tokens failed: {0}")]
    ListFailed(String),
    #[error("zellij web --create-token gave no token: {0}")]
    CreateFailed(String),
    #[error("zellij web --revoke-token {name} failed: {printed}")]
    RevokeFailed { name: String, printed: String },
    #[error("zellij web --stop failed: {0}")]
    StopFailed(String),
    #[error("{path} is not what `ask-popup setup web` writes ({reason}); what it made before is not known, so it was left")]
    StateUnreadable { path: String, reason: String },
    #[error("cannot remember what `ask-popup setup web` made in {path} ({reason}); `--remove` will not take it away")]
    StateUnwritable { path: String, reason: String },
    #[error("HOME is not set: there is no state dir to remember what `ask-popup setup web` makes")]
    NoStateDir,
}

/// What `zellij web --status` printed says of the server: whether Zellij was built with it at
/// all, and whether it answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerStatus {
    /// This Zellij was built without `web_server_capability`.
    NotBuiltIn,
    Offline,
    Online,
}

impl ServerStatus {
    /// From `zellij web --status`'s stdout and stderr.
    pub fn of(printed: &str) -> ServerStatus {
        if printed.contains("compiled without web server support") {
            ServerStatus::NotBuiltIn
        } else if online_base(printed).is_some() {
            ServerStatus::Online
        } else {
            ServerStatus::Offline
        }
    }
}

/// How to get a Zellij with the web server: its default features include it.
pub const REBUILD: &str =
    "cargo install --locked zellij --version 0.45.1 (its default features include the web server)";
