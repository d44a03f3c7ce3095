//! `ask-popup setup web`: Zellij's web client turned on in `config.kdl` — sessions shared with
//! web clients (`web_sharing "on"`) and the web server started with each session (`web_server
//! true`) — edited as `setup zellij` edits the file and taken out again exactly; the URL a
//! browser opens; and what `doctor` checks of it.

use super::zellij::{append_top, named, node, parse, Check, KdlError};
use kdl::{KdlDocument, KdlNode};

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
                let mut new = node(&wanted);
                new.set_leading(format!("{leading}{CHANGED}{was}\n{indent}"));
                new.set_trailing(old.trailing().unwrap_or("\n").to_owned());
                doc.nodes_mut()[i] = new;
                changed = true;
            }
            None => {
                let mut new = node(&wanted);
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

/// The token in what `zellij web --create-token` printed (`token_1: <token>`).
pub fn token_in(printed: &str) -> Option<&str> {
    printed.lines().find_map(|line| {
        let (name, token) = line.split_once(": ")?;
        let token = token.trim();
        (name.starts_with("token") && !token.is_empty() && !token.contains(' ')).then_some(token)
    })
}

/// How many tokens `zellij web --list-tokens` listed (`<name>: created at <time>`).
pub fn token_count(printed: &str) -> usize {
    printed
        .lines()
        .filter(|l| l.contains(": created at "))
        .count()
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
/// status, and the number of login tokens (None: unknown).
pub fn checks(
    config: Option<&WebConfig>,
    status: ServerStatus,
    tokens: Option<usize>,
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
        checks.push(match tokens {
            Some(0) => Check::fail(
                "web login",
                "no login token: a browser cannot log in",
                "zellij web --create-token",
            ),
            Some(n) => Check::pass("web login", format!("{n} login token(s)")),
            None => Check::skip("web login", "the tokens could not be listed"),
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
            Some("3f2a-bc")
        );
        assert_eq!(token_in("Failed to create token: no db\n"), None);
        assert_eq!(
            token_count("token_1: created at 2026-12-02 01:00:00\nphone: created at 2026-12-02 01:01:00 [READ-ONLY]\n"),
            2
        );
        assert_eq!(token_count(""), 0);
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
        let off = inspect("", PATH).unwrap();
        let fx = checks(Some(&off), ServerStatus::Online, Some(1));
        assert_eq!(fx.len(), 1);
        assert_eq!(fx[0].ok, None);
        let on = inspect("web_sharing \"on\"\nweb_server true\n", PATH).unwrap();
        let fx = checks(Some(&on), ServerStatus::NotBuiltIn, None);
        assert_eq!((fx.len(), fx[0].ok), (1, Some(false)));
        let fx = checks(Some(&on), ServerStatus::Online, Some(0));
        assert_eq!(
            fx.iter().map(|c| c.ok).collect::<Vec<_>>(),
            [Some(true), Some(false)]
        );
        let fx = checks(Some(&on), ServerStatus::Offline, Some(2));
        assert_eq!(
            fx.iter().map(|c| c.ok).collect::<Vec<_>>(),
            [Some(false), Some(true)]
        );
    }
}
