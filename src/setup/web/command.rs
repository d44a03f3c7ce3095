//! `ask-popup setup web` and the doctor's web checks: the config file they edit and read, the
//! state file where setup remembers what it made, and the `zellij web` commands they run. What
//! to change and what each check means is `super::config`, `super::tokens` and `super::checks`.

use super::checks;
use super::config::{self, WebConfig};
use super::tokens::{self, Made, ServerStatus, Step, Token, WebError};
use crate::setup::check::Check;
use crate::setup::files::{edit, read_text};
use crate::setup::zellij::install::{config_dir, default_config};
use crate::zellij::programs::ZellijCli;
use ask_popup_protocol::atomic_file::{self, OWNER_ONLY, READABLE};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// `zellij --config CONFIG web ARGS`: its exit status and what it printed (stdout, then
/// stderr). `zellij web` needs a config file: with a config dir alone it may say it started,
/// then exit.
fn zellij_web(config: &Path, args: &[&str]) -> Option<(bool, String)> {
    let mut command = ZellijCli::find()?.command();
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
    config::inspect(&text, &config.display().to_string()).ok()
}

fn server_status(config: &Path) -> ServerStatus {
    zellij_web(config, &["--status", "--timeout", "3"])
        .map_or(ServerStatus::Offline, |(_, printed)| {
            ServerStatus::of(&printed)
        })
}

/// Where `setup web` remembers what it made (`super::tokens::STATE_FILE`).
fn state_path() -> Result<PathBuf, WebError> {
    tokens::state_path(
        std::env::var_os("XDG_STATE_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
    .ok_or(WebError::NoStateDir)
}

/// What `setup web` made before (nothing, without a state file).
fn read_made(path: &Path) -> Result<Made, WebError> {
    let shown = path.display().to_string();
    match read_text(path) {
        Ok(Some(text)) => Made::read(&text, &shown),
        Ok(None) => Ok(Made::default()),
        Err(reason) => Err(WebError::StateUnreadable {
            path: shown,
            reason,
        }),
    }
}

/// Remembers `made` (the file goes when there is nothing to remember). Private: it says which
/// login tokens are ask-popup's.
fn save_made(path: &Path, made: &Made) -> Result<(), WebError> {
    let saved = if made.is_empty() {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    } else {
        path.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| atomic_file::write(path, made.file().as_bytes(), OWNER_ONLY))
    };
    saved.map_err(|e| WebError::StateUnwritable {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

/// The login tokens Zellij lists.
fn list_tokens(config: &Path) -> Result<Vec<Token>, WebError> {
    zellij_step(config, &["--list-tokens"], WebError::ListFailed).map(|p| tokens::tokens_in(&p))
}

/// Runs `zellij web ARGS` for a step that must succeed: `failed` makes its error from what
/// Zellij printed.
fn zellij_step(
    config: &Path,
    args: &[&str],
    failed: impl FnOnce(String) -> WebError,
) -> Result<String, WebError> {
    match zellij_web(config, args) {
        Some((true, printed)) => Ok(printed),
        Some((false, printed)) => Err(failed(printed.trim().to_owned())),
        None => Err(WebError::NoZellij),
    }
}

/// `ask-popup setup web [--write] [--remove] [--new-token] [--config-dir DIR]`.
pub fn setup_web(write: bool, remove: bool, new_token: bool, dir_arg: Option<&Path>) -> i32 {
    let Some(dir) = config_dir(dir_arg) else {
        say_err!(
            "ask-popup setup web: no config dir: set HOME or ZELLIJ_CONFIG_DIR, or pass --config-dir"
        );
        return 1;
    };
    let config = dir.join("config.kdl");
    let shown = config.display().to_string();
    if remove {
        let status = edit(&config, "web", write, READABLE, |text| {
            config::remove(text, &shown).map_err(|e| e.to_string())
        });
        return status.max(remove_made(&config, write));
    }
    if !write {
        say!("Would turn on in {shown}: web_sharing \"on\" (sessions are shared with Zellij's web client) and web_server true (each session starts the web server)");
        say!("Would start the web server, and make a login token when none exists{} (zellij web --create-token; shown in a terminal only)", if new_token { " or, with --new-token, in any case" } else { "" });
        say!("Run again with --write to do it.");
        return 0;
    }
    let existed = config.is_file();
    let status = edit(&config, "web", true, READABLE, |text| {
        // A machine without a config: Zellij's default one, with the web client on.
        let base = match (existed, default_config()) {
            (false, Some(default)) => default,
            _ => text.to_owned(),
        };
        match config::merge(&base, &shown) {
            Ok(None) if !existed => Ok(Some(base)),
            other => other.map_err(|e| e.to_string()),
        }
    });
    if status != 0 {
        return status;
    }
    match serve_and_log_in(&config, new_token, dir_arg) {
        Ok(()) => {}
        Err(e) => {
            say_err!("ask-popup setup web: {e}");
            return 1;
        }
    }
    let settings = settings_in(&config);
    let base = settings
        .as_ref()
        .map(WebConfig::base_url)
        .unwrap_or_default();
    let session = std::env::var("ZELLIJ_SESSION_NAME")
        .ok()
        .filter(|s| !s.is_empty());
    match session {
        Some(session) => {
            say!("Open: {}", config::session_url(&base, &session));
            say!("This session started before sharing was on: share it with Ctrl o, then s (or start a new one).");
        }
        None => say!("Open: {} and pick a session", base),
    }
    say!("From another device: see the README (an SSH tunnel to this port, or a certificate).");
    0
}

/// Starts the web server when it is down, and makes a login token when the plan says so,
/// remembering both for `--remove`.
fn serve_and_log_in(
    config: &Path,
    new_token: bool,
    dir_arg: Option<&Path>,
) -> Result<(), WebError> {
    let state = state_path()?;
    let mut made = read_made(&state).unwrap_or_else(|e| {
        // Only what is made now is remembered from here on.
        say_err!("ask-popup setup web: {e}");
        Made::default()
    });
    match server_status(config) {
        ServerStatus::NotBuiltIn => return Err(WebError::NotBuiltIn),
        ServerStatus::Online => say!("The web server runs"),
        ServerStatus::Offline => {
            zellij_step(config, &["--start", "--daemonize"], WebError::StartFailed)?;
            say!("Started the web server");
            made.started_server = true;
            save_made(&state, &made)?;
        }
    }
    let listed = list_tokens(config)?;
    let plan = tokens::token_plan(&listed, new_token, std::io::stdout().is_terminal());
    if let Some(said) = plan.said(&tokens::new_token_command(dir_arg)) {
        say!("{said}");
        return Ok(());
    }
    let printed = zellij_step(config, &["--create-token"], WebError::CreateFailed)?;
    let Some(new) = tokens::token_in(&printed) else {
        return Err(WebError::CreateFailed(printed.trim().to_owned()));
    };
    made.add(&new, &list_tokens(config).unwrap_or_default());
    say!("{}", tokens::token_shown(&new));
    save_made(&state, &made)
}

/// `setup web --remove`: revokes the login tokens setup made and stops the server it started
/// (without `write`, says it would).
fn remove_made(config: &Path, write: bool) -> i32 {
    // Without a state dir setup could make nothing (it says so), so there is nothing to take.
    let Ok(state) = state_path() else {
        return 0;
    };
    let made = match read_made(&state) {
        Ok(made) => made,
        Err(e) => {
            say_err!("ask-popup setup web: {e}");
            return 1;
        }
    };
    if made.is_empty() {
        return 0;
    }
    let mut status = 0;
    let listed = match list_tokens(config) {
        Ok(listed) => Some(listed),
        Err(e) => {
            say_err!("ask-popup setup web: {e}");
            status = 1;
            None
        }
    };
    let removal = tokens::removal(&made, listed.as_deref(), server_status(config));
    if !write {
        for step in &removal.steps {
            say!("{}", step.would());
        }
        return status;
    }
    let mut failed = Vec::new();
    for step in &removal.steps {
        let done = match step {
            Step::Revoke(name) => zellij_step(config, &["--revoke-token", name], |printed| {
                WebError::RevokeFailed {
                    name: name.clone(),
                    printed,
                }
            }),
            Step::StopServer => zellij_step(config, &["--stop"], WebError::StopFailed),
        };
        match done {
            Ok(_) => say!("{}", step.done()),
            Err(e) => {
                say_err!("ask-popup setup web: {e}");
                failed.push(step.clone());
                status = 1;
            }
        }
    }
    if let Err(e) = save_made(&state, &removal.left_after(&made, &failed)) {
        say_err!("ask-popup setup web: {e}");
        status = 1;
    }
    status
}

/// The doctor's checks of the web client, from the config in `dir`.
pub fn checks(dir: Option<&Path>) -> Vec<Check> {
    let Some(dir) = config_dir(dir) else {
        return checks::checks(None, ServerStatus::Offline, None);
    };
    let config = dir.join("config.kdl");
    let settings = settings_in(&config);
    if !settings.as_ref().is_some_and(WebConfig::is_on) {
        return checks::checks(settings.as_ref(), ServerStatus::Offline, None);
    }
    let status = server_status(&config);
    let tokens = list_tokens(&config).ok();
    checks::checks(settings.as_ref(), status, tokens.as_deref())
}
