//! `ask-popup setup web`: Zellij's web client turned on in `config.kdl` — sessions shared with
//! web clients (`web_sharing "on"`) and the web server started with each session (`web_server
//! true`) — edited as `setup zellij` edits the file and taken out again exactly; the login
//! tokens and the server it makes, remembered so that `--remove` takes them away again; the URL
//! a browser opens; and what `doctor` checks of it.

use super::agents::shell_word;
use super::zellij_config::{append_top, named, node, parse, Check, KdlError};
use kdl::{KdlDocument, KdlNode};
use serde::{Deserialize, Serialize};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The settings setup turns on: each top-level node's name and the value it gets.
const SETTINGS: [(&str, &str); 2] = [("web_sharing", "\"on\""), ("web_server", "true")];
/// The comment on a setting setup added (it goes again with `--remove`).
const ADDED: &str = "// Added by `ask-popup setup web`";
/// The comment on a setting setup changed, followed on its line by what it was (put back with
/// `--remove`).
const CHANGED: &str = "// Changed by `ask-popup setup web`; it was: ";
/// Where Zellij's web server listens unless the config says otherwise.
const DEFAULT_IP: &str = "127.0.0.1";
const DEFAULT_PORT: u16 = 8082;
/// The fix for a config without the web client.
pub const SETUP: &str = "ask-popup setup web --write";

/// What `config.kdl` says of the web client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebConfig {
    /// `web_sharing "on"`: sessions started in a terminal are shared.
    pub sharing: bool,
    /// `web_server true`: each session makes sure the server runs.
    pub server: bool,
    pub ip: String,
    pub port: u16,
    /// A certificate and key: the server speaks https.
    pub certificate: bool,
    /// `enforce_https_for_localhost true`.
    pub https_on_loopback: bool,
}

impl WebConfig {
    /// Whether setup's settings are both on.
    pub fn is_on(&self) -> bool {
        self.sharing && self.server
    }

    /// The server's address, as Zellij builds it: http only on loopback without a certificate.
    pub fn base_url(&self) -> String {
        let loopback = self
            .ip
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
        let scheme = if loopback && !self.certificate && !self.https_on_loopback {
            "http"
        } else {
            "https"
        };
        let host = if self.ip.contains(':') {
            format!("[{}]", self.ip)
        } else {
            self.ip.clone()
        };
        format!("{scheme}://{host}:{}", self.port)
    }
}

/// The page of session `session` on the server at `base`.
pub fn session_url(base: &str, session: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path_segment(session))
}

/// `text` as one URL path segment: every byte but the unreserved ones percent-encoded.
/// Hand-written: one function of RFC 3986 does not need an encoding crate.
fn path_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The server's base URL in what `zellij web --status` printed when it answers (`Web server
/// online with version: X. Checked: URL`).
pub fn online_base(printed: &str) -> Option<&str> {
    printed.lines().find_map(|line| {
        let rest = line
            .trim()
            .strip_prefix("Web server online with version:")?;
        let (_, url) = rest.split_once(". Checked: ")?;
        let url = url.trim();
        (url.starts_with("http://") || url.starts_with("https://")).then_some(url)
    })
}

/// What `config.kdl` (`existing`, `path` for messages) says of the web client.
pub fn inspect(existing: &str, path: &str) -> Result<WebConfig, KdlError> {
    let doc = parse(existing, path)?;
    let value = |name: &str| {
        named(&doc, name)
            .and_then(|i| doc.nodes()[i].entries().first())
            .map(|e| e.value().clone())
    };
    let string = |name: &str| value(name).and_then(|v| v.as_string().map(str::to_owned));
    let boolean = |name: &str| value(name).and_then(|v| v.as_bool());
    Ok(WebConfig {
        sharing: string("web_sharing").as_deref() == Some("on"),
        server: boolean("web_server") == Some(true),
        ip: string("web_server_ip").unwrap_or_else(|| DEFAULT_IP.to_owned()),
        port: value("web_server_port")
            .and_then(|v| v.as_i64())
            .and_then(|p| u16::try_from(p).ok())
            .unwrap_or(DEFAULT_PORT),
        certificate: string("web_server_cert").is_some() && string("web_server_key").is_some(),
        https_on_loopback: boolean("enforce_https_for_localhost") == Some(true),
    })
}

/// Whether `node` says `value` (its first entry, written as KDL).
fn says(node: &KdlNode, value: &str) -> bool {
    node.entries().len() == 1
        && node.children().is_none()
        && node
            .entries()
            .first()
            .is_some_and(|e| e.name().is_none() && e.value().to_string() == value)
}

/// `existing` with the web client's settings on; None when they are on already. A setting the
/// user set otherwise is changed, its old text kept in a comment for `remove`.
pub fn merge(existing: &str, path: &str) -> Result<Option<String>, KdlError> {
    let mut doc = parse(existing, path)?;
    let mut changed = false;
    let mut appended = false;
    for (name, value) in SETTINGS {
        let wanted = format!("{name} {value}");
        match named(&doc, name) {
            Some(i) if says(&doc.nodes()[i], value) => {}
            Some(i) => {
                let old = &doc.nodes()[i];
                let mut bare = old.clone();
                bare.set_leading("");
                bare.set_trailing("");
                let was = bare.to_string();
                if was.contains('\n') {
                    return Err(KdlError::Unchangeable {
                        path: path.to_owned(),
                        setting: name.to_owned(),
                    });
                }
                let leading = old.leading().unwrap_or("").to_owned();
                let indent = leading.rsplit('\n').next().unwrap_or("").to_owned();
                let mut new = node(&wanted)?;
                new.set_leading(format!("{leading}{CHANGED}{was}\n{indent}"));
                new.set_trailing(old.trailing().unwrap_or("\n").to_owned());
                doc.nodes_mut()[i] = new;
                changed = true;
            }
            None => {
                let mut new = node(&wanted)?;
                new.set_leading(format!("{ADDED}\n"));
                new.set_trailing("\n");
                if appended {
                    doc.nodes_mut().push(new);
                } else {
                    append_top(&mut doc, new);
                }
                appended = true;
                changed = true;
            }
        }
    }
    Ok(changed.then(|| doc.to_string()))
}

/// `existing` without what `merge` did: its settings taken out, the ones it changed back as they
/// were; None when it did nothing there.
pub fn remove(existing: &str, path: &str) -> Result<Option<String>, KdlError> {
    let mut doc = parse(existing, path)?;
    let before = doc.nodes().len();
    doc.nodes_mut()
        .retain(|n| !n.leading().is_some_and(|l| l.contains(ADDED)));
    let mut changed = doc.nodes().len() != before;
    for n in doc.nodes_mut() {
        if let Some(old) = changed_from(n) {
            *n = old;
            changed = true;
        }
    }
    Ok(changed.then(|| doc.to_string()))
}

/// The node `n` replaced, when `merge` changed it (its comment says what it was).
fn changed_from(n: &KdlNode) -> Option<KdlNode> {
    let leading = n.leading()?;
    let start = leading.find(CHANGED)?;
    let rest = &leading[start + CHANGED.len()..];
    let (was, _) = rest.split_once('\n')?;
    let parsed: KdlDocument = was.parse().ok()?;
    let mut old = parsed.nodes().first()?.clone();
    old.set_leading(&leading[..start]);
    old.set_trailing(n.trailing().unwrap_or("\n"));
    Some(old)
}

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
fn answering(tokens: &[Token]) -> usize {
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

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: &str = "config.kdl";

    fn round_trip(original: &str) -> String {
        let merged = merge(original, PATH).unwrap().expect("something changed");
        let _: KdlDocument = merged.parse().expect("the result is KDL");
        assert!(inspect(&merged, PATH).unwrap().is_on(), "{merged}");
        assert_eq!(merge(&merged, PATH).unwrap(), None, "a second run");
        assert_eq!(
            remove(&merged, PATH).unwrap().as_deref(),
            Some(original),
            "remove gives back the file byte for byte; merged:\n{merged}"
        );
        merged
    }

    #[test]
    fn an_empty_config_gets_both_settings_and_loses_them_again() {
        let merged = round_trip("");
        assert_eq!(
            merged,
            format!("{ADDED}\nweb_sharing \"on\"\n{ADDED}\nweb_server true\n")
        );
        assert!(!inspect("", PATH).unwrap().is_on());
    }

    #[test]
    fn a_users_config_keeps_everything_and_a_setting_set_otherwise_comes_back() {
        let original =
            "// mine\ntheme \"dracula\"\n  web_sharing \"off\" // not yet\nplugins {\n}\n";
        let merged = round_trip(original);
        assert!(
            merged.contains("  // Changed by `ask-popup setup web`; it was: web_sharing \"off\"\n  web_sharing \"on\" // not yet\n"),
            "{merged}"
        );
        assert!(
            merged.ends_with(&format!("}}\n\n{ADDED}\nweb_server true\n")),
            "{merged}"
        );
    }

    #[test]
    fn settings_already_on_are_the_users_and_stay_on_removal() {
        let original = "web_sharing \"on\"\nweb_server true\n";
        assert_eq!(merge(original, PATH).unwrap(), None);
        assert_eq!(remove(original, PATH).unwrap(), None);
    }

    #[test]
    fn a_config_that_is_not_kdl_is_left_alone() {
        assert!(merge("web_sharing {", PATH).is_err());
        assert!(remove("web_sharing {", PATH).is_err());
    }

    #[test]
    fn the_url_is_the_one_zellij_serves() {
        let mut config = inspect("web_server_port 9000\n", PATH).unwrap();
        assert_eq!(config.base_url(), "http://127.0.0.1:9000");
        assert_eq!(
            session_url(&config.base_url(), "work"),
            "http://127.0.0.1:9000/work"
        );
        config.ip = "0.0.0.0".to_owned();
        assert_eq!(config.base_url(), "https://0.0.0.0:9000");
        let tls = inspect(
            "web_server_cert \"/c.pem\"\nweb_server_key \"/k.pem\"\n",
            PATH,
        )
        .unwrap();
        assert_eq!(tls.base_url(), "https://127.0.0.1:8082");
    }

    #[test]
    fn the_token_is_read_from_what_zellij_printed() {
        assert_eq!(
            token_in("Created token successfully\n\ntoken_1: 3f2a-bc\n"),
            Some(NewToken {
                name: "token_1".to_owned(),
                token: "3f2a-bc".to_owned()
            })
        );
        assert_eq!(token_in("Failed to create token: no db\n"), None);
        assert_eq!(
            tokens_in("token_1: created at 2026-12-02 01:00:00\nphone: created at 2026-12-02 01:01:00 [READ-ONLY]\n"),
            [
                listed("token_1", "2026-12-02 01:00:00"),
                Token {
                    read_only: true,
                    ..listed("phone", "2026-12-02 01:01:00")
                }
            ]
        );
        assert_eq!(tokens_in(""), []);
    }

    fn listed(name: &str, created_at: &str) -> Token {
        Token {
            name: name.to_owned(),
            created_at: created_at.to_owned(),
            read_only: false,
        }
    }

    fn made(tokens: &[(&str, Option<&str>)], started_server: bool) -> Made {
        Made {
            tokens: tokens
                .iter()
                .map(|(name, created_at)| MadeToken {
                    name: (*name).to_owned(),
                    created_at: created_at.map(str::to_owned),
                })
                .collect(),
            started_server,
        }
    }

    #[test]
    fn a_token_is_made_only_when_none_can_answer_or_a_new_one_is_asked_for() {
        let one = [listed("token_1", "2026-12-02 01:00:00")];
        let watcher = [Token {
            read_only: true,
            ..listed("phone", "2026-12-02 01:01:00")
        }];
        // (listed, --new-token, a terminal) → plan
        let cases: [(&[Token], bool, bool, TokenPlan); 8] = [
            (&[], false, true, TokenPlan::Create),
            (&one, false, true, TokenPlan::Keep(1)),
            (&one, true, true, TokenPlan::Create),
            (&watcher, false, true, TokenPlan::Create),
            // Not a terminal: never made, so never printed where an agent or a log reads it.
            (&[], false, false, TokenPlan::InTerminal),
            (&one, true, false, TokenPlan::InTerminal),
            (&watcher, false, false, TokenPlan::InTerminal),
            (&one, false, false, TokenPlan::Keep(1)),
        ];
        for (listed, new_token, terminal, plan) in cases {
            assert_eq!(
                token_plan(listed, new_token, terminal),
                plan,
                "{listed:?} new_token={new_token} terminal={terminal}"
            );
        }
    }

    #[test]
    fn outside_a_terminal_setup_says_the_exact_command_that_makes_a_token() {
        assert_eq!(
            new_token_command(None),
            "ask-popup setup web --write --new-token"
        );
        let command = new_token_command(Some(Path::new("/home/me/my zellij")));
        assert_eq!(
            command,
            "ask-popup setup web --write --new-token --config-dir '/home/me/my zellij'"
        );
        let said = TokenPlan::InTerminal.said(&command).unwrap();
        assert!(
            said.ends_with(&format!("run in a terminal: {command}")),
            "{said}"
        );
        assert!(TokenPlan::Keep(2)
            .said(&command)
            .unwrap()
            .contains(&command));
        assert_eq!(TokenPlan::Create.said(&command), None);
    }

    #[test]
    fn a_token_made_is_remembered_with_its_creation_time_and_the_file_reads_back() {
        let mut state = Made::default();
        assert!(state.is_empty());
        let new = NewToken {
            name: "token_2".to_owned(),
            token: "secret".to_owned(),
        };
        state.add(&new, &[listed("token_1", "t1"), listed("token_2", "t2")]);
        state.started_server = true;
        assert_eq!(state, made(&[("token_2", Some("t2"))], true));
        let file = state.file();
        assert!(
            !file.contains("secret"),
            "the token itself is never kept: {file}"
        );
        assert_eq!(Made::read(&file, "web.json"), Ok(state));
        // The list failed after it was made: remembered by its name alone.
        let mut state = Made::default();
        state.add(&new, &[]);
        assert_eq!(state, made(&[("token_2", None)], false));
        assert!(matches!(
            Made::read("{", "web.json"),
            Err(WebError::StateUnreadable { .. })
        ));
    }

    #[test]
    fn remove_revokes_the_tokens_setup_made_and_stops_the_server_it_started() {
        let ours = made(&[("token_2", Some("t2")), ("token_3", None)], true);
        let listed_now = [
            listed("token_1", "t1"),
            listed("token_2", "t2"),
            listed("token_3", "t3"),
        ];
        let removal = removal(&ours, Some(&listed_now), ServerStatus::Online);
        assert_eq!(
            removal.steps,
            [
                Step::Revoke("token_2".to_owned()),
                Step::Revoke("token_3".to_owned()),
                Step::StopServer
            ]
        );
        assert!(removal.left.is_empty());
        assert_eq!(
            removal.steps[0].done(),
            "Revoked the login token token_2 (`ask-popup setup web` made it)"
        );
        assert_eq!(
            removal.steps[2].would(),
            "Would stop the web server (`ask-popup setup web` started it)"
        );
        // A revoke that failed is remembered, for the next removal.
        let left = removal.left_after(&ours, &[Step::Revoke("token_3".to_owned())]);
        assert_eq!(left, made(&[("token_3", None)], false));
        let left = removal.left_after(&ours, &[Step::StopServer]);
        assert_eq!(left, made(&[], true));
    }

    #[test]
    fn remove_leaves_the_users_tokens_and_a_server_it_did_not_start() {
        // token_2 is gone (revoked by hand); a token named token_2 made since is not ours.
        let ours = made(&[("token_2", Some("t2"))], false);
        let listed_now = [listed("token_1", "t1"), listed("token_2", "t9")];
        let removal = removal(&ours, Some(&listed_now), ServerStatus::Online);
        assert_eq!(removal.steps, []);
        assert!(removal.left.is_empty(), "a token gone is forgotten");
        // Started by setup, but no longer running: nothing to stop.
        let started = made(&[], true);
        assert_eq!(
            removal_of(&started, ServerStatus::Offline),
            Removal::default()
        );
        // The tokens could not be listed: none is revoked blindly, all stay remembered.
        let removal = super::removal(&ours, None, ServerStatus::Offline);
        assert_eq!(removal.steps, []);
        assert_eq!(removal.left, ours);
    }

    fn removal_of(made: &Made, status: ServerStatus) -> Removal {
        removal(made, Some(&[]), status)
    }

    #[test]
    fn the_state_file_is_under_the_xdg_state_dir() {
        let home = Some(OsStr::new("/home/me"));
        assert_eq!(
            state_path(None, home),
            Some(PathBuf::from("/home/me/.local/state/ask-popup/web.json"))
        );
        assert_eq!(
            state_path(Some(OsStr::new("/state")), home),
            Some(PathBuf::from("/state/ask-popup/web.json"))
        );
        assert_eq!(
            state_path(Some(OsStr::new("relative")), home),
            Some(PathBuf::from("/home/me/.local/state/ask-popup/web.json"))
        );
        assert_eq!(state_path(None, None), None);
    }

    #[test]
    fn the_servers_status_is_told_apart() {
        assert_eq!(
            ServerStatus::of("This version of Zellij was compiled without web server support, cannot get web server status!"),
            ServerStatus::NotBuiltIn
        );
        assert_eq!(
            ServerStatus::of(
                "Web server online with version: 0.45.1. Checked: http://127.0.0.1:8082"
            ),
            ServerStatus::Online
        );
        assert_eq!(
            ServerStatus::of("Web server is offline, checked: http://127.0.0.1:8082"),
            ServerStatus::Offline
        );
    }

    #[test]
    fn doctor_checks_the_server_and_a_token_only_once_set_up() {
        let one = [listed("token_1", "t1")];
        let off = inspect("", PATH).unwrap();
        let fx = checks(Some(&off), ServerStatus::Online, Some(&one));
        assert_eq!(fx.len(), 1);
        assert_eq!(fx[0].ok, None);
        let on = inspect("web_sharing \"on\"\nweb_server true\n", PATH).unwrap();
        let fx = checks(Some(&on), ServerStatus::NotBuiltIn, None);
        assert_eq!((fx.len(), fx[0].ok), (1, Some(false)));
        let fx = checks(Some(&on), ServerStatus::Online, Some(&[]));
        assert_eq!(
            fx.iter().map(|c| c.ok).collect::<Vec<_>>(),
            [Some(true), Some(false)]
        );
        assert_eq!(
            fx[1].fix.as_deref(),
            Some("ask-popup setup web --write (in a terminal: Zellij shows a new token only once)")
        );
        let two = [listed("token_1", "t1"), listed("token_2", "t2")];
        let fx = checks(Some(&on), ServerStatus::Offline, Some(&two));
        assert_eq!(
            fx.iter().map(|c| c.ok).collect::<Vec<_>>(),
            [Some(false), Some(true)]
        );
        assert_eq!(fx[1].detail, "2 login token(s)");
        // Read-only tokens watch a session: none of them answers a question.
        let watcher = [Token {
            read_only: true,
            ..listed("phone", "t1")
        }];
        let fx = checks(Some(&on), ServerStatus::Online, Some(&watcher));
        assert_eq!(fx[1].ok, Some(false), "{:?}", fx[1]);
        assert!(fx[1].detail.contains("read-only"), "{:?}", fx[1]);
    }
}
