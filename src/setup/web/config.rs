//! `ask-popup setup web`: Zellij's web client turned on in `config.kdl` — sessions shared with
//! web clients (`web_sharing "on"`) and the web server started with each session (`web_server
//! true`) — edited as `setup zellij` edits the file and taken out again exactly; and the URL a
//! browser opens.

use crate::setup::zellij::config::{append_top, named, node, parse, KdlError};
use kdl::{KdlDocument, KdlNode};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// The settings setup turns on: each top-level node's name and the value it gets.
const SETTINGS: [(&str, &str); 2] = [("web_sharing", "\"on\""), ("web_server", "true")];
/// The comment on a setting setup added (it goes again with `--remove`).
pub(super) const ADDED: &str = "// Added by `ask-popup setup web`";
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

/// What a path segment percent-encodes: every byte but RFC 3986's unreserved ones (letters,
/// digits, `-`, `.`, `_`, `~`).
const NOT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `text` as one URL path segment: every byte but the unreserved ones percent-encoded.
pub(super) fn path_segment(text: &str) -> String {
    utf8_percent_encode(text, NOT_UNRESERVED).to_string()
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
