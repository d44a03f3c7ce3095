//! The Node.js that Pi runs on: Pi 1.6 (`@earendil-works/pi-coding-agent`) needs Node 22.19 or
//! later (its `engines`, since Pi 0.75), and its `pi` starts with `#!/usr/bin/env node`, so the
//! `node` on PATH is the one it gets. `doctor` says plainly when that one is too old: Pi then
//! fails at start, before the extension is ever loaded.

use super::zellij_config::Check;
use std::process::{Command, Stdio};

/// The oldest Node that Pi 1.6 runs on: `engines.node` of its package, `>=22.19.0`.
pub const PI_MIN_NODE: (u64, u64, u64) = (22, 19, 0);

/// The check's name in `doctor`'s list.
pub const CHECK: &str = "Pi's Node.js";

/// What `node --version` prints (`v22.23.3`), or None when no `node` runs.
pub fn node_version() -> Option<String> {
    let out = Command::new("node")
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// `v22.23.3` (or `22.23.3`) as numbers; None for anything else.
pub fn parse_version(text: &str) -> Option<(u64, u64, u64)> {
    let text = text.trim();
    let text = text.strip_prefix('v').unwrap_or(text);
    let mut parts = text.splitn(3, '.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    // A pre-release or build suffix (`0-nightly…`) counts by its number.
    let patch = parts.next()?;
    let digits: String = patch.chars().take_while(char::is_ascii_digit).collect();
    Some((major, minor, digits.parse().ok()?))
}

/// The check, from what `node --version` printed (None: no `node` on PATH).
pub fn node_check(version: Option<&str>) -> Check {
    let (major, minor, patch) = PI_MIN_NODE;
    let wanted = format!("{major}.{minor}");
    let fix =
        format!("install Node.js {wanted} or later (https://nodejs.org) and put it first on PATH");
    let Some(text) = version else {
        return Check::fail(
            CHECK,
            format!("no `node` on PATH: Pi needs Node.js {wanted} or later"),
            fix,
        );
    };
    match parse_version(text) {
        Some(found) if found >= (major, minor, patch) => Check::pass(
            CHECK,
            format!("node {text} (Pi needs {wanted} or later)"),
        ),
        Some(_) => Check::fail(
            CHECK,
            format!("node {text} is too old: Pi 1.6 needs Node.js {wanted} or later and does not start on it"),
            fix,
        ),
        None => Check::fail(
            CHECK,
            format!("`node --version` printed {text:?}, not a version: Pi needs Node.js {wanted} or later"),
            fix,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_with_or_without_the_v() {
        assert_eq!(parse_version("v22.23.3\n"), Some((22, 23, 3)));
        assert_eq!(parse_version("20.20.2"), Some((20, 20, 2)));
        assert_eq!(
            parse_version("v23.0.0-nightly20251101abc"),
            Some((23, 0, 0))
        );
        assert_eq!(parse_version("node"), None);
        assert_eq!(parse_version("v22"), None);
        assert_eq!(parse_version(""), None);
    }

    #[test]
    fn node_20_is_too_old_and_says_so_with_the_fix() {
        let check = node_check(Some("v20.20.2"));
        assert_eq!(check.ok, Some(false));
        assert_eq!(check.check, CHECK);
        assert!(
            check.detail.contains("v20.20.2 is too old"),
            "{}",
            check.detail
        );
        assert!(check.detail.contains("22.19"), "{}", check.detail);
        assert!(check.fix.as_deref().is_some_and(|f| f.contains("22.19")));
    }

    #[test]
    fn the_minimum_and_later_pass() {
        for version in ["v22.19.0", "v22.23.3", "v23.1.0", "v24.0.0"] {
            let check = node_check(Some(version));
            assert_eq!(check.ok, Some(true), "{version}: {}", check.detail);
        }
        for version in ["v22.18.9", "v21.99.99", "v18.20.0"] {
            assert_eq!(node_check(Some(version)).ok, Some(false), "{version}");
        }
    }

    #[test]
    fn no_node_or_no_version_fails_plainly() {
        let none = node_check(None);
        assert_eq!(none.ok, Some(false));
        assert!(none.detail.contains("no `node` on PATH"), "{}", none.detail);
        let garbage = node_check(Some("command not found"));
        assert_eq!(garbage.ok, Some(false));
        assert!(
            garbage.detail.contains("not a version"),
            "{}",
            garbage.detail
        );
    }
}
