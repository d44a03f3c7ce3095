//! The Node.js that Pi runs on. Pi's `pi` starts with `#!/usr/bin/env node`, so the `node` on
//! PATH is the one it gets, and Pi says which it needs in its package's `engines.node`: Pi 1.6
//! (`@earendil-works/pi-coding-agent`) `>=22.19.0` (since Pi 0.75), older Pis `>=20.6.0`. `doctor`
//! says plainly when the `node` on PATH is older than the installed Pi's: Pi then fails at
//! start, before the extension is ever loaded.

use super::check::Check;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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

/// The oldest Node a Pi package's `package.json` says it runs on (`engines.node`, `>=X.Y.Z`);
/// None when it says nothing this reads.
pub fn minimum_node(package_json: &str) -> Option<(u64, u64, u64)> {
    let package: Value = serde_json::from_str(package_json).ok()?;
    let wanted = package.get("engines")?.get("node")?.as_str()?;
    parse_version(wanted.trim().strip_prefix(">=")?)
}

/// The `package.json` of the Pi that `pi` (its path on PATH) runs: the executable is a link into
/// its package (`…/node_modules/.bin/pi` → `…/pi-coding-agent/dist/…/cli.js`), whose folder and
/// its parents are looked in for a package named `…/pi-coding-agent`.
pub fn pi_package_json(pi: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(pi).ok()?;
    real.ancestors().skip(1).find_map(|dir| {
        let file = dir.join("package.json");
        let text = std::fs::read_to_string(&file).ok()?;
        let package: Value = serde_json::from_str(&text).ok()?;
        let name = package.get("name")?.as_str()?;
        name.ends_with("/pi-coding-agent").then_some(file)
    })
}

/// The check, from the Node the installed Pi needs (`wanted`) and what `node --version` printed
/// (None: no `node` on PATH).
pub fn node_check(wanted: (u64, u64, u64), version: Option<&str>) -> Check {
    let (major, minor, _) = wanted;
    let wanted_text = format!("{major}.{minor}");
    let fix = format!(
        "install Node.js {wanted_text} or later (https://nodejs.org) and put it first on PATH"
    );
    let Some(text) = version else {
        return Check::fail(
            CHECK,
            format!("no `node` on PATH: Pi needs Node.js {wanted_text} or later"),
            fix,
        );
    };
    match parse_version(text) {
        Some(found) if found >= wanted => Check::pass(
            CHECK,
            format!("node {text} (Pi needs {wanted_text} or later)"),
        ),
        Some(_) => Check::fail(
            CHECK,
            format!("node {text} is too old: this Pi needs Node.js {wanted_text} or later and does not start on it"),
            fix,
        ),
        None => Check::fail(
            CHECK,
            format!("`node --version` printed {text:?}, not a version: Pi needs Node.js {wanted_text} or later"),
            fix,
        ),
    }
}

/// The check for the Pi at `pi`, when its package says which Node it needs.
pub fn check_for(pi: &Path) -> Option<Check> {
    let package = std::fs::read_to_string(pi_package_json(pi)?).ok()?;
    let wanted = minimum_node(&package)?;
    Some(node_check(wanted, node_version().as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Pi 1.6.0's package says: `"engines": {"node": ">=22.19.0"}`.
    const PI_1_6: (u64, u64, u64) = (22, 19, 0);

    #[test]
    fn the_minimum_is_read_from_pis_package() {
        let pi_1_6 = r#"{"name": "@earendil-works/pi-coding-agent", "version": "1.6.0", "engines": {"node": ">=22.19.0"}}"#;
        assert_eq!(minimum_node(pi_1_6), Some(PI_1_6));
        let pi_0_73 =
            r#"{"name": "@mariozechner/pi-coding-agent", "engines": {"node": ">=20.6.0"}}"#;
        assert_eq!(minimum_node(pi_0_73), Some((20, 6, 0)));
        assert!(node_check((20, 6, 0), Some("v20.20.2")).ok == Some(true));
        assert_eq!(minimum_node(r#"{"name": "x"}"#), None);
        assert_eq!(minimum_node("not json"), None);
    }

    #[test]
    fn pis_package_is_found_from_its_executable() {
        let dir = tempfile::tempdir().unwrap();
        let package = dir
            .path()
            .join("node_modules/@earendil-works/pi-coding-agent");
        std::fs::create_dir_all(package.join("dist/bundle")).unwrap();
        std::fs::write(
            package.join("package.json"),
            r#"{"name": "@earendil-works/pi-coding-agent", "engines": {"node": ">=22.19.0"}}"#,
        )
        .unwrap();
        std::fs::write(package.join("dist/bundle/cli.js"), "#!/usr/bin/env node\n").unwrap();
        // A package.json of its own inside dist names no Pi and is passed by.
        std::fs::write(package.join("dist/package.json"), r#"{"type": "module"}"#).unwrap();
        let bin = dir.path().join("node_modules/.bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(
            "../@earendil-works/pi-coding-agent/dist/bundle/cli.js",
            bin.join("pi"),
        )
        .unwrap();
        assert_eq!(
            pi_package_json(&bin.join("pi")),
            Some(std::fs::canonicalize(package.join("package.json")).unwrap())
        );
        assert_eq!(pi_package_json(&dir.path().join("no-such-pi")), None);
    }

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
        let check = node_check(PI_1_6, Some("v20.20.2"));
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
            let check = node_check(PI_1_6, Some(version));
            assert_eq!(check.ok, Some(true), "{version}: {}", check.detail);
        }
        for version in ["v22.18.9", "v21.99.99", "v18.20.0"] {
            assert_eq!(
                node_check(PI_1_6, Some(version)).ok,
                Some(false),
                "{version}"
            );
        }
    }

    #[test]
    fn no_node_or_no_version_fails_plainly() {
        let none = node_check(PI_1_6, None);
        assert_eq!(none.ok, Some(false));
        assert!(none.detail.contains("no `node` on PATH"), "{}", none.detail);
        let garbage = node_check(PI_1_6, Some("command not found"));
        assert_eq!(garbage.ok, Some(false));
        assert!(
            garbage.detail.contains("not a version"),
            "{}",
            garbage.detail
        );
    }
}
