//! `ask-popup doctor`: every check of what ask-popup needs (Zellij on PATH, its config, the
//! plugin answering in this session, the web client, each installed agent wired to the
//! command), run and reported. What each check means is `crate::setup::zellij::checks` and
//! `crate::setup::web::checks`.

use super::check::{self, Check};
use super::claude::{self, CLAUDE_APPROVAL_HOOK, CLAUDE_ELICITATION_HOOK};
use super::codex::{self, CODEX_APPROVAL_HOOK, CODEX_HOOK};
use super::opencode::config::{self as opencode, Entry};
use super::opencode::install::{opencode_approvals_current, opencode_plugin_current};
use super::pi::{self, pi_extension_current, pi_package};
use super::pi_node;
use super::places;
use super::skill::{self, skill_current};
use super::web;
use super::zellij::checks as zellij_checks;
use super::zellij::install::config_dir;
use super::zellij::plugin::{PLUGIN_FILE, ZELLIJ_TESTED};
use crate::terminal;
use crate::zellij::pipe::{NoAnswer, Zellij, ANSWER_WITHIN};
use crate::zellij::programs::{find_on_path, ZellijCli};
use ask_popup_protocol::envelope::ErrorCode;
use ask_popup_protocol::VERSION;
use std::path::{Path, PathBuf};

/// `ask-popup doctor [--json]`.
pub fn doctor(json: bool, dir: Option<&Path>, plugin: &str) -> i32 {
    let mut checks = Vec::new();
    checks.push(zellij_checks::zellij_check(zellij_version().as_deref()));
    match config_dir(dir) {
        None => checks.push(Check::fail(
            "config dir",
            "HOME and ZELLIJ_CONFIG_DIR are not set",
            "set HOME, or pass --config-dir",
        )),
        Some(dir) => {
            let plugin_file = std::fs::read(dir.join("plugins").join(PLUGIN_FILE)).ok();
            let config = std::fs::read_to_string(dir.join("config.kdl")).ok();
            checks.extend(zellij_checks::config_checks(
                &dir,
                plugin_file.as_deref(),
                config.as_deref(),
            ));
        }
    }
    checks.push(plugin_answers(plugin));
    checks.push(record_check());
    checks.push(desktop_check());
    checks.extend(web::command::checks(dir));
    checks.extend(agent_checks());
    if json {
        let json = serde_json::to_string_pretty(&checks).unwrap_or_default();
        crate::terminal::print(&format!("{}\n", terminal::json_for_terminal(&json)));
    } else {
        crate::terminal::print(&terminal::for_person(&check::report(&checks)));
    }
    if check::all_hold(&checks) {
        0
    } else {
        1
    }
}

/// Whether the record of questionnaires is kept, and private (each record's folder, and the
/// record, its user's alone): the plugin writes it only into a folder the command made private
/// (`history::private`), so a folder it keeps none in is said, with why.
fn record_check() -> Check {
    match crate::history::command::zellij_cache_dir() {
        Some(cache) => record_check_in(&cache),
        None => Check::skip("record", "HOME is not set: no Zellij cache folder"),
    }
}

/// `record_check` under Zellij's cache folder `cache`.
fn record_check_in(cache: &Path) -> Check {
    use crate::history::private::{standing, Standing};
    const CHECK: &str = "record";
    let folders = crate::history::plugin_folders(cache);
    let mut private = None;
    for folder in &folders {
        match standing(folder) {
            Standing::Private => private = private.or(Some(folder)),
            Standing::Opened(mode) => {
                return Check::fail(
                    CHECK,
                    format!(
                        "{} can be read by others (mode {mode:o}), and the plugin writes the record there",
                        folder.display()
                    ),
                    "ask-popup history --limit 1 (it makes the record private again)",
                )
            }
            Standing::NotKept(why) => {
                return Check::fail(
                    CHECK,
                    format!("no record is kept in {}: {why}", folder.display()),
                    why.fix(),
                )
            }
        }
    }
    match private {
        None => Check::skip(CHECK, "no questionnaire recorded yet"),
        Some(folder) => Check::pass(
            CHECK,
            format!(
                "{} (private)",
                folder
                    .join(ask_popup_protocol::history::FILE_NAME)
                    .display()
            ),
        ),
    }
}

/// Whether a question that starts waiting is a desktop notification the person can answer
/// from (`notify::desktop`), and if not why: the terminal's notification is told instead.
fn desktop_check() -> Check {
    const CHECK: &str = "desktop actions";
    match crate::notify::desktop_notice::availability() {
        Ok(server) => Check::pass(
            CHECK,
            format!("{server} shows a waiting question with its options, Deny and Open"),
        ),
        Err(why) => Check::skip(
            CHECK,
            format!("not available: {why}; the terminal's notification (OSC 777) is told instead"),
        ),
    }
}

/// What `zellij --version` prints; None without a `zellij` on PATH, or when it fails.
fn zellij_version() -> Option<String> {
    let mut version = ZellijCli::find()?.command();
    version.arg("--version");
    crate::zellij::programs::output_of(version)
}

/// Inside Zellij: the plugin answers its `version` pipe within `ANSWER_WITHIN`, with this
/// command's version.
fn plugin_answers(plugin: &str) -> Check {
    const CHECK: &str = "plugin in this session";
    let zellij = match Zellij::find(plugin) {
        Ok(zellij) => zellij,
        Err(ErrorCode::NoUi) => {
            return Check::skip(
                CHECK,
                "not inside Zellij: run `ask-popup doctor` in a Zellij pane to check it",
            )
        }
        Err(_) => {
            return Check::fail(
                CHECK,
                "cannot run zellij pipe: zellij is not on PATH",
                format!("cargo install --locked zellij --version {}", ZELLIJ_TESTED),
            )
        }
    };
    let answer = zellij
        .answer_at_once("version", "", "doctor", |_, out| {
            !String::from_utf8_lossy(out).trim().is_empty()
        })
        .map(|out| String::from_utf8_lossy(&out).trim().to_owned());
    match answer {
        Ok(version) if version == VERSION => {
            Check::pass(CHECK, format!("`{plugin}` answers, version {version}"))
        }
        Ok(other) => Check::fail(
            CHECK,
            format!(
                "the `{plugin}` loaded in this session is not this command's version {VERSION} (it answered {:?})",
                other.chars().take(60).collect::<String>()
            ),
            "ask-popup setup zellij --write, then restart the session (Zellij keeps a loaded plugin until then)",
        ),
        Err(why @ NoAnswer::Unattended(_)) => Check::fail(
            CHECK,
            why.to_string(),
            "run `ask-popup doctor` in a pane of a session you are attached to",
        ),
        Err(NoAnswer::NotLoaded(_)) => Check::fail(
            CHECK,
            format!("`{plugin}` did not answer within {} s: it is not loaded, or waits for (or was denied) its permissions", ANSWER_WITHIN.as_secs_f32()),
            format!("look at the popup: if it asks for permissions, press y; if they were denied, delete the plugin's entry from ~/.cache/zellij/permissions.kdl and run `zellij pipe --plugin {plugin} --name show -- x`"),
        ),
    }
}

/// Each installed agent wired to this command.
fn agent_checks() -> Vec<Check> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let mut checks = Vec::new();
    if find_on_path("claude").is_some() {
        let settings =
            std::fs::read_to_string(home.join(".claude").join("settings.json")).unwrap_or_default();
        checks.push(if claude::has_claude_hook(&settings) {
            Check::pass(
                "Claude Code",
                "~/.claude/settings.json sends AskUserQuestion to ask-popup",
            )
        } else {
            Check::fail(
                "Claude Code",
                "no ask-popup hook in ~/.claude/settings.json",
                "ask-popup setup claude --write",
            )
        });
        checks.push(if CLAUDE_ELICITATION_HOOK.is_in(&settings) {
            Check::pass(
                "Claude Code's MCP forms",
                "~/.claude/settings.json asks MCP servers' forms in the popup",
            )
        } else {
            Check::fail(
                "Claude Code's MCP forms",
                "no ask-popup Elicitation hook in ~/.claude/settings.json",
                "ask-popup setup claude --write",
            )
        });
        checks.push(if CLAUDE_APPROVAL_HOOK.is_in(&settings) {
            Check::pass(
                "Claude Code's approvals",
                "~/.claude/settings.json asks Claude Code's permission prompts in the popup",
            )
        } else {
            Check::skip(
                "Claude Code's approvals",
                "asked in Claude Code itself (ask-popup setup claude --approvals --write asks them in the popup)",
            )
        });
        checks.push(skill_check("claude", "Claude Code"));
    } else {
        checks.push(Check::skip("Claude Code", "not installed"));
    }
    if find_on_path("codex").is_some() {
        let path = places::codex_config(|name| std::env::var(name).ok()).unwrap_or_default();
        let config = std::fs::read_to_string(&path).unwrap_or_default();
        checks.push(if codex::has_codex_table(&config) {
            Check::pass("Codex", format!("{} runs ask-popup mcp", path.display()))
        } else {
            Check::fail(
                "Codex",
                format!("no [mcp_servers.ask-popup] table in {}", path.display()),
                "ask-popup setup codex --write",
            )
        });
        let hooks_path = path.with_file_name("hooks.json");
        let hooks = std::fs::read_to_string(&hooks_path).unwrap_or_default();
        checks.push(if CODEX_HOOK.is_in(&hooks) {
            Check::pass(
                "Codex's question tool",
                format!(
                    "{} sends request_user_input to ask-popup (Codex runs it once trusted in its /hooks)",
                    hooks_path.display()
                ),
            )
        } else {
            Check::fail(
                "Codex's question tool",
                format!("no ask-popup hook in {}", hooks_path.display()),
                "ask-popup setup codex --write",
            )
        });
        checks.push(if CODEX_APPROVAL_HOOK.is_in(&hooks) {
            Check::pass(
                "Codex's approvals",
                format!(
                    "{} asks Codex's permission prompts in the popup (once trusted in its /hooks)",
                    hooks_path.display()
                ),
            )
        } else {
            Check::skip(
                "Codex's approvals",
                "asked in Codex itself (ask-popup setup codex --approvals --write asks them in the popup)",
            )
        });
        checks.push(skill_check("codex", "Codex"));
    } else {
        checks.push(Check::skip("Codex", "not installed"));
    }
    if let Some(pi_path) = find_on_path("pi") {
        let agent = places::pi_agent_dir(|name| std::env::var(name).ok()).unwrap_or_default();
        let dir = agent.join("extensions").join(pi::PI_EXTENSION_DIR);
        let package = pi_package(&agent);
        let skill = if package.is_some() {
            Check::pass(
                "Pi skill",
                "the pi-ask-popup package ships the ask-user skill",
            )
        } else {
            skill_check("pi", "Pi")
        };
        checks.push(pi_check(&dir, package));
        checks.extend(pi_node::check_for(&pi_path));
        checks.push(skill);
    } else {
        checks.push(Check::skip("Pi", "not installed"));
    }
    checks.extend(opencode_checks());
    checks
}

/// Whether the file `file` in opencode's plugin dir `dir` is a version of setup's plugin.
fn is_setups_file(dir: &Path, file: &str) -> bool {
    std::fs::read(dir.join(file))
        .is_ok_and(|text| opencode::is_plugin_file(file, &String::from_utf8_lossy(&text)))
}

/// opencode, when installed: the MCP server in its config, and the plugin in its plugin dir.
fn opencode_checks() -> Vec<Check> {
    const FIX: &str = "ask-popup setup opencode --write";
    if find_on_path("opencode").is_none() {
        return vec![Check::skip("opencode", "not installed")];
    }
    let Some(dir) = opencode::config_dir(|name| std::env::var(name).ok()) else {
        return vec![Check::fail("opencode", "HOME is not set", "set HOME")];
    };
    let path = opencode::config_file(&dir, Path::exists);
    let config = std::fs::read_to_string(&path).unwrap_or_default();
    let shown = path.display();
    let server = match opencode::entry_in(&config, &crate::zellij::programs::exe()) {
        Entry::Current => Check::pass("opencode", format!("{shown} runs ask-popup mcp")),
        Entry::Other => Check::fail(
            "opencode",
            format!("the ask-popup server in {shown} runs another command"),
            FIX,
        ),
        Entry::NotSetups => Check::fail(
            "opencode",
            format!("the ask-popup server in {shown} is not one setup wrote (one of your own?)"),
            format!("rename it or take it out of {shown}, then {FIX}"),
        ),
        Entry::Missing => Check::fail("opencode", format!("no ask-popup server in {shown}"), FIX),
    };
    let plugins = dir.join(opencode::PLUGIN_DIR);
    let main = plugins.join(opencode::PLUGIN[0].0);
    let plugin = if opencode_plugin_current(&plugins) {
        Check::pass(
            "opencode plugin",
            format!("{} is this command's plugin", main.display()),
        )
    } else if main.exists() && !is_setups_file(&plugins, opencode::PLUGIN[0].0) {
        Check::fail(
            "opencode plugin",
            format!(
                "{} is not ask-popup's plugin (a file of your own?)",
                main.display()
            ),
            format!("move it, then {FIX}"),
        )
    } else if main.exists() {
        Check::fail(
            "opencode plugin",
            format!("{} is another version of the plugin", main.display()),
            FIX,
        )
    } else {
        Check::fail(
            "opencode plugin",
            format!("no ask-popup plugin in {}", plugins.display()),
            FIX,
        )
    };
    let approvals_file = plugins.join(opencode::APPROVALS_PLUGIN.0);
    let approvals = if opencode_approvals_current(&plugins) {
        Check::pass(
            "opencode's approvals",
            format!(
                "{} asks opencode's permission prompts in the popup",
                approvals_file.display()
            ),
        )
    } else if approvals_file.exists() && !is_setups_file(&plugins, opencode::APPROVALS_PLUGIN.0) {
        Check::fail(
            "opencode's approvals",
            format!(
                "{} is not ask-popup's plugin (a file of your own?)",
                approvals_file.display()
            ),
            "move it, then ask-popup setup opencode --approvals --write",
        )
    } else if approvals_file.exists() {
        Check::fail(
            "opencode's approvals",
            format!(
                "{} is another version of the plugin",
                approvals_file.display()
            ),
            "ask-popup setup opencode --approvals --write",
        )
    } else {
        Check::skip(
            "opencode's approvals",
            "asked in opencode itself (ask-popup setup opencode --approvals --write asks them in the popup)",
        )
    };
    vec![
        server,
        plugin,
        approvals,
        skill_check("opencode", "opencode"),
    ]
}

/// The `ask-user` skill in the skill folder of `agent` (named `name`).
fn skill_check(agent: &str, name: &str) -> Check {
    let what = format!("{name} skill");
    let fix = format!("ask-popup setup {agent} --write");
    let Some(dir) = skill::skill_dir(agent, |var| std::env::var(var).ok()) else {
        return Check::fail(&what, "HOME is not set", "set HOME");
    };
    let file = dir.join("SKILL.md");
    if skill_current(&dir) {
        Check::pass(&what, format!("{} is this command's", file.display()))
    } else if file.exists() {
        Check::fail(
            &what,
            format!("{} is another version of the skill", file.display()),
            fix,
        )
    } else {
        Check::fail(
            &what,
            format!("no ask-user skill in {}", dir.display()),
            fix,
        )
    }
}

/// Pi's extension: the files `setup pi` writes into `dir`, or the package `pi install` added
/// (`package`, its source), and not both.
fn pi_check(dir: &Path, package: Option<String>) -> Check {
    let current = pi_extension_current(dir);
    match package {
        Some(source) if dir.exists() => Check::fail(
            "Pi",
            format!(
                "Pi loads the extension twice: the package {source} and {}",
                dir.display()
            ),
            "ask-popup setup pi --remove --write",
        ),
        Some(source) => match pi::pinned_version(&source) {
            Some(version) if version != VERSION => Check::warn(
                "Pi",
                format!("Pi loads the package {source}, not this command's version {VERSION}"),
                format!("pi install npm:{}@{VERSION}", pi::PI_PACKAGE),
            ),
            _ => Check::pass("Pi", format!("Pi loads the package {source}")),
        },
        None if current => Check::pass(
            "Pi",
            format!("{} holds this command's extension", dir.display()),
        ),
        None if dir.exists() => Check::fail(
            "Pi",
            format!("{} holds another version of the extension", dir.display()),
            "ask-popup setup pi --write",
        ),
        None => Check::fail(
            "Pi",
            format!("no ask_user_question extension in {}", dir.display()),
            "ask-popup setup pi --write",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ask_popup_protocol::history::NO_RECORD;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_record_check_says_when_no_record_is_kept_and_why() {
        let cache = tempfile::tempdir().unwrap();
        assert_eq!(record_check_in(cache.path()).ok, None);
        // Zellij made the plugin's folder open to others; the plugin left its notice there.
        let folder = cache
            .path()
            .join("file:")
            .join("p.wasm")
            .join("plugin_cache");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(folder.join(NO_RECORD), "no record\n").unwrap();
        let check = record_check_in(cache.path());
        assert_eq!(check.ok, Some(false), "{check:?}");
        assert!(
            check.detail.starts_with(&format!(
                "no record is kept in {}: no ask-popup command has made it private yet",
                folder.display()
            )),
            "{check:?}"
        );
        assert!(check
            .fix
            .as_deref()
            .unwrap()
            .starts_with("ask-popup history"));
        // Made private: kept, and said so.
        crate::history::private::make_private(&folder).unwrap();
        let check = record_check_in(cache.path());
        assert_eq!(check.ok, Some(true), "{check:?}");
        assert!(check.detail.ends_with("ask-popup-history.jsonl (private)"));
        // Opened again by hand: the plugin writes there, and others could read it.
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
        let check = record_check_in(cache.path());
        assert_eq!(check.ok, Some(false), "{check:?}");
        assert!(check.detail.contains("can be read by others (mode 755)"));
    }
}
