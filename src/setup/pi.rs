//! `ask-popup setup pi`: the Pi extension this command carries, written into Pi's extensions
//! dir unless Pi loads it as a package already (`pi install`), and the skill beside it.

use super::files::{files_current, write_files};
use super::places::pi_agent_dir;
use super::report::Change;
use super::skill::skill;
use serde_json::Value;
use std::path::Path;

/// The Pi extension (`integrations/pi`), carried by the command so that `setup pi --write` can
/// install it where Pi finds it on its own: `(path in the extension's dir, text)`.
pub const PI_EXTENSION: [(&str, &str); 12] = [
    (
        "package.json",
        include_str!("../../integrations/pi/package.json"),
    ),
    ("README.md", include_str!("../../integrations/pi/README.md")),
    (
        "src/index.ts",
        include_str!("../../integrations/pi/src/index.ts"),
    ),
    (
        "src/command.ts",
        include_str!("../../integrations/pi/src/command.ts"),
    ),
    (
        "src/config.ts",
        include_str!("../../integrations/pi/src/config.ts"),
    ),
    (
        "src/envelope.ts",
        include_str!("../../integrations/pi/src/envelope.ts"),
    ),
    (
        "src/events.ts",
        include_str!("../../integrations/pi/src/events.ts"),
    ),
    (
        "src/fallback.ts",
        include_str!("../../integrations/pi/src/fallback.ts"),
    ),
    (
        "src/questionnaire.ts",
        include_str!("../../integrations/pi/src/questionnaire.ts"),
    ),
    (
        "src/schema.ts",
        include_str!("../../integrations/pi/src/schema.ts"),
    ),
    (
        "src/shared.ts",
        include_str!("../../integrations/pi/src/shared.ts"),
    ),
    (
        "src/shared.json",
        include_str!("../../integrations/pi/src/shared.json"),
    ),
];

/// The extension's directory under Pi's `extensions/`.
pub const PI_EXTENSION_DIR: &str = "ask-popup";

/// The Pi extension's npm package (`integrations/pi/package.json`'s name).
pub const PI_PACKAGE: &str = "pi-ask-popup";

/// The Pi package source in Pi's `settings` (the text of its settings.json) that loads this
/// extension, as `pi install` adds it: `npm:pi-ask-popup`, pinned (`npm:pi-ask-popup@0.1.0`,
/// `npm:pi-ask-popup@file:…tgz`) or not, or a local path to the package (a folder named
/// pi-ask-popup, or integrations/pi in a clone). None: Pi loads no such package.
pub fn pi_package_source(settings: &str) -> Option<String> {
    let settings: Value = serde_json::from_str(settings).ok()?;
    let packages = settings.get("packages")?.as_array()?;
    packages
        .iter()
        .filter_map(|p| p.as_str().or_else(|| p.get("source")?.as_str()))
        .find(|source| is_this_package(source))
        .map(str::to_owned)
}

fn is_this_package(source: &str) -> bool {
    if let Some(spec) = source.strip_prefix("npm:") {
        let name = spec.split_once('@').map_or(spec, |(name, _)| name);
        return name.trim() == PI_PACKAGE;
    }
    let path = source.trim_end_matches('/');
    path.ends_with(&format!("/{PI_PACKAGE}")) || path.ends_with("integrations/pi")
}

/// The version a package source pins (`npm:pi-ask-popup@0.1.0`), when it names one.
pub fn pinned_version(source: &str) -> Option<&str> {
    let (_, version) = source.strip_prefix("npm:")?.split_once('@')?;
    let plain = version.split('.').count() == 3
        && version
            .split('.')
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    plain.then_some(version)
}

/// `ask-popup setup pi [--write] [--remove]`: the extension's files in Pi's extensions dir,
/// and the skill in its skills dir (the Pi package ships both).
pub fn setup_pi(write: bool, remove: bool) -> i32 {
    let Some(agent) = pi_agent_dir(|name| std::env::var(name).ok()) else {
        say_err!("ask-popup setup pi: HOME is not set");
        return 1;
    };
    let packaged = pi_package(&agent).is_some();
    let extension = pi_extension(&agent, write, remove);
    if packaged && !remove {
        return extension;
    }
    extension.max(skill("pi", write, remove))
}

/// The extension's files in the extensions dir of Pi's agent dir `agent`.
fn pi_extension(agent: &Path, write: bool, remove: bool) -> i32 {
    let dir = agent.join("extensions").join(PI_EXTENSION_DIR);
    if remove {
        if !dir.exists() {
            say!("{}: nothing to remove", dir.display());
            return 0;
        }
        return Change::delete(dir.display()).make("pi", write, || std::fs::remove_dir_all(&dir));
    }
    if pi_extension_current(&dir) {
        say!("{}: the extension is there already", dir.display());
        return 0;
    }
    if let Some(source) = pi_package(agent) {
        // Two copies would give Pi's model the tool twice.
        say!(
            "Pi loads the extension as a package already ({source}, from `pi install`): nothing to write"
        );
        return 0;
    }
    Change::write("the ask_user_question extension", &dir)
        .make("pi", write, || write_files(&dir, &PI_EXTENSION))
}

/// The package source in Pi's settings (under Pi's agent dir `agent`) that loads the extension,
/// as `pi install` put it there.
pub fn pi_package(agent: &Path) -> Option<String> {
    let settings = std::fs::read_to_string(agent.join("settings.json")).ok()?;
    pi_package_source(&settings)
}

/// Whether `dir` holds the extension this command carries, file for file.
pub fn pi_extension_current(dir: &Path) -> bool {
    files_current(dir, &PI_EXTENSION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pi_extension_carries_every_file_of_integrations_pi() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/pi/src");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| format!("src/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        on_disk.sort();
        let mut carried: Vec<String> = PI_EXTENSION
            .iter()
            .map(|(path, _)| path.to_string())
            .filter(|p| p.starts_with("src/"))
            .collect();
        carried.sort();
        assert_eq!(carried, on_disk);
    }

    #[test]
    fn a_pi_package_of_the_extension_is_found_in_pis_settings() {
        let settings = |packages: &str| format!(r#"{{"theme": "dark", "packages": {packages}}}"#);
        for (packages, found) in [
            (r#"["npm:pi-ask-popup"]"#, Some("npm:pi-ask-popup")),
            (
                r#"["npm:other", "npm:pi-ask-popup@0.1.0"]"#,
                Some("npm:pi-ask-popup@0.1.0"),
            ),
            (
                r#"["npm:pi-ask-popup@file:/tmp/pi-ask-popup-0.1.0.tgz"]"#,
                Some("npm:pi-ask-popup@file:/tmp/pi-ask-popup-0.1.0.tgz"),
            ),
            (
                r#"[{"source": "/src/ask-popup/integrations/pi", "skills": []}]"#,
                Some("/src/ask-popup/integrations/pi"),
            ),
            (r#"["npm:pi-ask-popup-fork", "npm:@x/pi-ask-popup"]"#, None),
            ("[]", None),
        ] {
            assert_eq!(
                pi_package_source(&settings(packages)).as_deref(),
                found,
                "{packages}"
            );
        }
        assert_eq!(pi_package_source(r#"{"theme": "dark"}"#), None);
        assert_eq!(pi_package_source("not json"), None);
        assert_eq!(pinned_version("npm:pi-ask-popup@0.1.0"), Some("0.1.0"));
        assert_eq!(pinned_version("npm:pi-ask-popup@file:/x.tgz"), None);
        assert_eq!(pinned_version("npm:pi-ask-popup"), None);
    }
}
