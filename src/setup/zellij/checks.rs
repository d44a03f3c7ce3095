//! The doctor's checks of Zellij: its version, and the plugin file and `config.kdl` in its
//! config dir.

use super::config::inspect;
use super::plugin::{
    is_url, release_in, release_url, ALIAS, BIND_KEY, PLUGIN, PLUGIN_FILE, VERSION, ZELLIJ_LINE,
    ZELLIJ_TESTED,
};
use crate::setup::check::Check;
use std::path::Path;

/// The check of `zellij --version`'s output (None: no `zellij` that answers): this release is
/// built and tested for one Zellij line; another line is a warning, since Zellij still loads
/// the plugin and it may work.
pub fn zellij_check(version: Option<&str>) -> Check {
    let install = format!("cargo install --locked zellij --version {ZELLIJ_TESTED}");
    let Some(printed) = version.map(str::trim) else {
        return Check::fail("zellij", "not on PATH", install);
    };
    let line = format!("{ZELLIJ_LINE}.");
    match printed.strip_prefix("zellij ") {
        Some(v) if v.starts_with(&line) => Check::pass(
            "zellij",
            format!(
                "{printed} (ask-popup {VERSION} is built and tested for Zellij {ZELLIJ_LINE}.x)"
            ),
        ),
        _ => Check::warn(
            "zellij",
            format!(
                "{printed} on PATH; ask-popup {VERSION} is built and tested for Zellij \
                 {ZELLIJ_LINE}.x, and plugins can break across Zellij's minor versions"
            ),
            format!("use the ask-popup release made for your Zellij, or: {install}"),
        ),
    }
}

/// The checks of the plugin file and `config.kdl` in Zellij's config dir `dir`, from what the
/// files hold (None: no such file). An alias that loads the plugin from a URL needs no file
/// (the plugin answering in the session says which version Zellij downloaded).
pub fn config_checks(dir: &Path, plugin: Option<&[u8]>, config: Option<&str>) -> Vec<Check> {
    let fix = "ask-popup setup zellij --write";
    let plugin_path = dir.join("plugins").join(PLUGIN_FILE);
    let config_path = dir.join("config.kdl");
    let found = config.map(|c| inspect(c, &config_path.display().to_string()));
    let url = match &found {
        Some(Ok((Some(location), _))) if is_url(location) => Some(location.clone()),
        _ => None,
    };
    let mut checks = Vec::new();
    checks.push(match (plugin, &url) {
        (_, Some(url)) => Check::skip(
            "plugin file",
            format!("none needed: Zellij downloads the plugin from {url}"),
        ),
        (None, None) => Check::fail(
            "plugin file",
            format!("{} is missing", plugin_path.display()),
            fix,
        ),
        (Some(bytes), None) if !PLUGIN.is_empty() && bytes != PLUGIN => Check::fail(
            "plugin file",
            format!(
                "{} is another version than this command's",
                plugin_path.display()
            ),
            fix,
        ),
        (Some(_), None) => Check::pass(
            "plugin file",
            format!("{}, this command's version", plugin_path.display()),
        ),
    });
    let (location, binding) = match found {
        None => (None, false),
        Some(Ok(found)) => found,
        Some(Err(e)) => {
            checks.push(Check::fail(
                "config.kdl",
                e.to_string(),
                "fix the file, then: ask-popup setup zellij --write",
            ));
            return checks;
        }
    };
    let wanted = format!("file:{}", plugin_path.display());
    checks.push(match location {
        None => Check::fail(
            "alias",
            format!("{} has no `{ALIAS}` alias", config_path.display()),
            fix,
        ),
        Some(found) if is_url(&found) => match release_in(&found) {
            Some(release) if release != VERSION => Check::fail(
                "alias",
                format!("`{ALIAS}` loads release {release}'s plugin from {found}, not this command's {VERSION}"),
                format!("ask-popup setup zellij --url {} --write", release_url(VERSION)),
            ),
            _ => Check::pass("alias", format!("`{ALIAS}` → {found}")),
        },
        Some(found) if found != wanted && !found.ends_with(&format!("/{PLUGIN_FILE}")) => {
            Check::fail(
                "alias",
                format!("`{ALIAS}` points at {found}, not {wanted}"),
                fix,
            )
        }
        Some(found) => Check::pass("alias", format!("`{ALIAS}` → {found}")),
    });
    checks.push(if binding {
        Check::pass(
            "binding",
            format!("Ctrl o, then {BIND_KEY} brings a hidden popup back"),
        )
    } else {
        Check::fail(
            "binding",
            format!(
                "{} has no binding that brings the popup back",
                config_path.display()
            ),
            fix,
        )
    });
    checks
}
