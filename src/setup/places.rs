//! Where Codex and Pi keep their files, as they find them: read by their setups, by the skill's
//! and by the doctor.

/// Codex's config.toml: `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`.
pub fn codex_config(env: impl Fn(&str) -> Option<String>) -> Option<std::path::PathBuf> {
    if let Some(dir) = env("CODEX_HOME").filter(|d| !d.is_empty()) {
        return Some(std::path::Path::new(&dir).join("config.toml"));
    }
    env("HOME").filter(|h| !h.is_empty()).map(|home| {
        std::path::Path::new(&home)
            .join(".codex")
            .join("config.toml")
    })
}

/// Pi's agent dir, as Pi finds it: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
pub fn pi_agent_dir(env: impl Fn(&str) -> Option<String>) -> Option<std::path::PathBuf> {
    if let Some(dir) = env("PI_CODING_AGENT_DIR").filter(|d| !d.is_empty()) {
        return Some(dir.into());
    }
    env("HOME")
        .filter(|h| !h.is_empty())
        .map(|home| std::path::Path::new(&home).join(".pi").join("agent"))
}
