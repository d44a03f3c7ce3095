//! `ask-popup setup web` and the doctor's web checks: the config file they edit and read, and
//! the `zellij web` commands they run. What to change and what each check means is
//! `ask_popup::caller::web`.

use super::install::{config_dir, default_config, edit, read_text};
use ask_popup::atomic_file::READABLE;
use ask_popup::caller::web::{self, ServerStatus, WebConfig};
use ask_popup::caller::zellij::Check;
use std::path::Path;
use std::process::{Command, Stdio};

/// `zellij --config CONFIG web ARGS`: its exit status and what it printed (stdout, then
/// stderr). `zellij web` needs a config file: with a config dir alone it may say it started,
/// then exit.
fn zellij_web(config: &Path, args: &[&str]) -> Option<(bool, String)> {
    let mut command = Command::new("zellij");
    if config.is_file() {
        command.arg("--config").arg(config);
    }
    let out = command
        .arg("web")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let mut printed = String::from_utf8_lossy(&out.stdout).into_owned();
    printed.push_str(&String::from_utf8_lossy(&out.stderr));
    Some((out.status.success(), printed))
}

/// What the config file at `config` says of the web client (None: no file, or not readable).
fn settings_in(config: &Path) -> Option<WebConfig> {
    let text = read_text(config).ok().flatten()?;
    web::inspect(&text, &config.display().to_string()).ok()
}

fn server_status(config: &Path) -> ServerStatus {
    zellij_web(config, &["--status", "--timeout", "3"])
        .map_or(ServerStatus::Offline, |(_, printed)| {
            ServerStatus::of(&printed)
        })
}

/// `ask-popup setup web [--write] [--remove] [--config-dir DIR]`.
pub fn setup_web(write: bool, remove: bool, dir: Option<&Path>) -> i32 {
    let Some(dir) = config_dir(dir) else {
        eprintln!(
            "ask-popup setup web: no config dir: set HOME or ZELLIJ_CONFIG_DIR, or pass --config-dir"
        );
        return 1;
    };
    let config = dir.join("config.kdl");
    let shown = config.display().to_string();
    if remove {
        return edit(&config, "web", write, READABLE, |text| {
            web::remove(text, &shown).map_err(|e| e.to_string())
        });
    }
    if !write {
        println!("Would turn on in {shown}: web_sharing \"on\" (sessions are shared with Zellij's web client) and web_server true (each session starts the web server)");
        println!("Would create a login token (zellij web --create-token) and start the web server");
        println!("Run again with --write to do it.");
        return 0;
    }
    let existed = config.is_file();
    let status = edit(&config, "web", true, READABLE, |text| {
        // A machine without a config: Zellij's default one, with the web client on.
        let base = match (existed, default_config()) {
            (false, Some(default)) => default,
            _ => text.to_owned(),
        };
        match web::merge(&base, &shown) {
            Ok(None) if !existed => Ok(Some(base)),
            other => other.map_err(|e| e.to_string()),
        }
    });
    if status != 0 {
        return status;
    }
    match server_status(&config) {
        ServerStatus::NotBuiltIn => {
            eprintln!(
                "ask-popup setup web: this zellij was built without its web server: {}",
                web::REBUILD
            );
            return 1;
        }
        ServerStatus::Online => println!("The web server runs"),
        ServerStatus::Offline => match zellij_web(&config, &["--start", "--daemonize"]) {
            Some((true, _)) => println!("Started the web server"),
            Some((false, printed)) => {
                eprintln!("ask-popup setup web: zellij web --start failed: {printed}");
                return 1;
            }
            None => {
                eprintln!("ask-popup setup web: cannot run zellij");
                return 1;
            }
        },
    }
    let token = zellij_web(&config, &["--create-token"])
        .and_then(|(ok, printed)| ok.then(|| web::token_in(&printed).map(str::to_owned)))
        .flatten();
    let Some(token) = token else {
        eprintln!("ask-popup setup web: zellij web --create-token gave no token");
        return 1;
    };
    let settings = settings_in(&config);
    let base = settings
        .as_ref()
        .map(WebConfig::base_url)
        .unwrap_or_default();
    let session = std::env::var("ZELLIJ_SESSION_NAME")
        .ok()
        .filter(|s| !s.is_empty());
    println!("Login token (Zellij shows it this once; keep it): {token}");
    match session {
        Some(session) => {
            println!("Open: {}", web::session_url(&base, &session));
            println!("This session started before sharing was on: share it with Ctrl o, then s (or start a new one).");
        }
        None => println!("Open: {} and pick a session", base),
    }
    println!("From another device: see the README (an SSH tunnel to this port, or a certificate).");
    0
}

/// The doctor's checks of the web client, from the config in `dir`.
pub fn checks(dir: Option<&Path>) -> Vec<Check> {
    let Some(dir) = config_dir(dir) else {
        return web::checks(None, ServerStatus::Offline, None);
    };
    let config = dir.join("config.kdl");
    let settings = settings_in(&config);
    if !settings.as_ref().is_some_and(WebConfig::is_on) {
        return web::checks(settings.as_ref(), ServerStatus::Offline, None);
    }
    let status = server_status(&config);
    let tokens = zellij_web(&config, &["--list-tokens"])
        .and_then(|(ok, printed)| ok.then(|| web::token_count(&printed)));
    web::checks(settings.as_ref(), status, tokens)
}
