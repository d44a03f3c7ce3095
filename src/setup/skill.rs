//! The `ask-user` skill (the Agent Skills format) that tells an agent when to ask and how,
//! written into each agent's own skill folder.

use super::files::{files_current, write_files};
use super::places::{codex_config, pi_agent_dir};
use super::report::Change;
use std::path::Path;

/// The skill that tells an agent when to ask and how (the Agent Skills format), installed into
/// each agent's skill folder by setup and shipped with the Pi package.
pub const SKILL: &str = include_str!("../../integrations/pi/skills/ask-user/SKILL.md");

/// The skill's name: its folder's, and its front matter's.
pub const SKILL_NAME: &str = "ask-user";

/// The folder the skill goes into for `agent` (`claude`, `codex`, `pi` or `opencode`): the
/// agent's own skill folder (`~/.claude/skills`, `$CODEX_HOME/skills`, Pi's
/// `~/.pi/agent/skills`, opencode's `~/.config/opencode/skills`), then `ask-user`.
pub fn skill_dir(agent: &str, env: impl Fn(&str) -> Option<String>) -> Option<std::path::PathBuf> {
    let skills = match agent {
        "claude" => std::path::Path::new(&env("HOME").filter(|h| !h.is_empty())?)
            .join(".claude")
            .join("skills"),
        "codex" => codex_config(&env)?.parent()?.join("skills"),
        "pi" => pi_agent_dir(&env)?.join("skills"),
        "opencode" => super::opencode::config::config_dir(&env)?.join("skills"),
        _ => return None,
    };
    Some(skills.join(SKILL_NAME))
}

/// The `ask-user` skill in `agent`'s skill folder (`skill_dir`): written, or deleted
/// with `remove`.
pub fn skill(agent: &str, write: bool, remove: bool) -> i32 {
    let Some(dir) = skill_dir(agent, |name| std::env::var(name).ok()) else {
        say_err!("ask-popup setup {agent}: HOME is not set");
        return 1;
    };
    let file = dir.join("SKILL.md");
    if remove {
        if !file.exists() {
            say!("{}: no ask-user skill to remove", dir.display());
            return 0;
        }
        let what = format!("the ask-user skill {}", dir.display());
        return Change::delete(what).make(agent, write, || {
            std::fs::remove_file(&file)?;
            // Its folder, and the skills folder, when nothing else is in them.
            if std::fs::remove_dir(&dir).is_ok() {
                if let Some(skills) = dir.parent() {
                    let _ = std::fs::remove_dir(skills);
                }
            }
            Ok(())
        });
    }
    if skill_current(&dir) {
        say!("{}: the ask-user skill is there already", file.display());
        return 0;
    }
    Change::write("the ask-user skill", &file)
        .make(agent, write, || write_files(&dir, &[("SKILL.md", SKILL)]))
}

/// Whether the skill folder `dir` holds the skill this command carries.
pub fn skill_current(dir: &Path) -> bool {
    files_current(dir, &[("SKILL.md", SKILL)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skill_goes_into_each_agents_own_skill_folder() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let home = env(&[("HOME", "/h")]);
        let dir = |agent| skill_dir(agent, home).map(|d| d.display().to_string());
        assert_eq!(dir("claude").as_deref(), Some("/h/.claude/skills/ask-user"));
        assert_eq!(dir("codex").as_deref(), Some("/h/.codex/skills/ask-user"));
        assert_eq!(dir("pi").as_deref(), Some("/h/.pi/agent/skills/ask-user"));
        assert_eq!(
            dir("opencode").as_deref(),
            Some("/h/.config/opencode/skills/ask-user")
        );
        assert_eq!(dir("other"), None);
        let set = env(&[
            ("HOME", "/h"),
            ("CODEX_HOME", "/c"),
            ("PI_CODING_AGENT_DIR", "/p"),
            ("XDG_CONFIG_HOME", "/x"),
        ]);
        let dir = |agent| skill_dir(agent, set).map(|d| d.display().to_string());
        assert_eq!(dir("codex").as_deref(), Some("/c/skills/ask-user"));
        assert_eq!(dir("pi").as_deref(), Some("/p/skills/ask-user"));
        assert_eq!(
            dir("opencode").as_deref(),
            Some("/x/opencode/skills/ask-user")
        );
        assert_eq!(skill_dir("claude", env(&[])), None);
    }

    #[test]
    fn the_skill_is_in_the_agent_skills_format() {
        // Front matter between `---` lines: a name that is its folder's, and a description
        // within the format's 1,024 characters.
        let mut parts = SKILL.splitn(3, "---\n");
        assert_eq!(parts.next(), Some(""));
        let front = parts.next().expect("front matter");
        let name = front.lines().find_map(|l| l.strip_prefix("name: "));
        assert_eq!(name, Some(SKILL_NAME));
        let description = front
            .lines()
            .find_map(|l| l.strip_prefix("description: "))
            .expect("a description");
        assert!(!description.is_empty() && description.chars().count() <= 1024);
        assert!(description.contains("ask_user_question"));
        assert!(parts
            .next()
            .is_some_and(|body| body.contains("(Recommended)")));
    }
}
