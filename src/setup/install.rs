//! `ask-popup setup` for Zellij and the agents: the files it reads and writes, and the programs
//! it runs; with what `setup web` and the doctor read of Zellij's config dir. What to change is
//! `crate::setup::zellij_config` and `crate::setup`.

use super::agents as setup;
use super::opencode;
use super::zellij_config::{self, PLUGIN, PLUGIN_FILE};
use crate::terminal;
use crate::zellij::programs::{find_on_path, ZellijCli};
use ask_popup_protocol::atomic_file::{self, OWNER_ONLY, READABLE};
use std::path::{Path, PathBuf};

/// Zellij's config dir: `arg`, else where Zellij finds it (`crate::setup::zellij_config`).
pub fn config_dir(arg: Option<&Path>) -> Option<PathBuf> {
    zellij_config::config_dir(arg, |name| std::env::var(name).ok(), Path::is_dir)
}

/// A file's text; None when there is no such file, an error that names it when it cannot be
/// read.
pub fn read_text(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Zellij's own default config (`zellij setup --dump-config`), for a machine with none yet.
pub fn default_config() -> Option<String> {
    let mut dump = ZellijCli::find()?.command();
    dump.args(["setup", "--dump-config"]);
    let text = crate::zellij::programs::output_of(dump)?;
    // Only a config that setup can read back (a `zellij` that is not Zellij prints anything).
    let readable = zellij_config::inspect(&text, "the default config").is_ok();
    readable.then_some(text)
}

/// Zellij's config dir, the plugin file and config.kdl in it, and config.kdl's text (None
/// when there is none yet).
struct ZellijFiles {
    dir: PathBuf,
    plugin_path: PathBuf,
    config_path: PathBuf,
    existing: Option<String>,
}

/// The files `setup zellij` works on; None, with what went wrong said, when they cannot be read.
fn zellij_files(dir: Option<&Path>) -> Option<ZellijFiles> {
    let Some(dir) = config_dir(dir) else {
        say_err!("ask-popup setup zellij: no config dir: set HOME or ZELLIJ_CONFIG_DIR, or pass --config-dir");
        return None;
    };
    let plugin_path = dir.join("plugins").join(PLUGIN_FILE);
    let config_path = dir.join("config.kdl");
    match read_text(&config_path) {
        Ok(existing) => Some(ZellijFiles {
            dir,
            plugin_path,
            config_path,
            existing,
        }),
        Err(e) => {
            say_err!("ask-popup setup zellij: {e}");
            None
        }
    }
}

/// `ask-popup setup zellij [--write] [--remove] [--config-dir DIR]`.
pub fn setup_zellij(write: bool, remove: bool, dir: Option<&Path>) -> i32 {
    let Some(ZellijFiles {
        dir,
        plugin_path,
        config_path,
        existing,
    }) = zellij_files(dir)
    else {
        return 1;
    };
    if remove {
        return remove_zellij(write, &plugin_path, &config_path, existing.as_deref());
    }
    if PLUGIN.is_empty() {
        say_err!(
            "ask-popup setup zellij: this ask-popup was built without its plugin; install it with `bash scripts/install.sh` from a clone, or load the release's plugin: ask-popup setup zellij --url --write"
        );
        return 1;
    }
    run_zellij_setup(write, Load::File, dir, plugin_path, config_path, existing)
}

/// `ask-popup setup zellij --url [URL] [--write] [--config-dir DIR]`: the alias loads the
/// plugin from `url` (empty: this version's release), and no file is written.
pub fn setup_zellij_url(write: bool, url: &str, dir: Option<&Path>) -> i32 {
    let url = if url.is_empty() {
        zellij_config::release_url(zellij_config::VERSION)
    } else {
        url.to_owned()
    };
    if !zellij_config::is_url(&url) {
        say_err!("ask-popup setup zellij: --url takes an http:// or https:// URL, not {url:?}");
        return 1;
    }
    let Some(ZellijFiles {
        dir,
        plugin_path,
        config_path,
        existing,
    }) = zellij_files(dir)
    else {
        return 1;
    };
    run_zellij_setup(
        write,
        Load::Url(url),
        dir,
        plugin_path,
        config_path,
        existing,
    )
}

/// Plans the setup, then says what it would do, or does it and says what it did.
fn run_zellij_setup(
    write: bool,
    load: Load,
    dir: PathBuf,
    plugin_path: PathBuf,
    config_path: PathBuf,
    existing: Option<String>,
) -> i32 {
    let setup = match ZellijSetup::plan(load, dir, plugin_path, config_path, existing) {
        Ok(setup) => setup,
        Err(e) => {
            say_err!("ask-popup setup zellij: {e}");
            return 1;
        }
    };
    if !write {
        setup.say_what_it_would_do();
        return 0;
    }
    if let Err(e) = setup.write() {
        say_err!("ask-popup setup zellij: {e}");
        return 1;
    }
    setup.say_what_it_did();
    0
}

/// Where the alias has Zellij load the plugin from.
enum Load {
    /// The file this command carries, written into Zellij's config dir.
    File,
    /// A URL Zellij downloads it from (once: it keeps it in its cache folder).
    Url(String),
}

/// What `setup zellij` changes: the plugin file, and config.kdl as it is and as it will be.
struct ZellijSetup {
    load: Load,
    dir: PathBuf,
    plugin_path: PathBuf,
    config_path: PathBuf,
    /// config.kdl's text; None when there is none yet.
    existing: Option<String>,
    /// What the alias and the binding are merged into: the existing text, or Zellij's default
    /// config.
    base: String,
    /// config.kdl's new text; None when it has the alias and the binding already.
    new_config: Option<String>,
    /// The plugin file is the plugin this command carries (or none is needed: a URL).
    plugin_current: bool,
}

impl ZellijSetup {
    /// What to change in `dir`, where config.kdl's text is `existing`; an error when that text
    /// cannot be merged.
    fn plan(
        load: Load,
        dir: PathBuf,
        plugin_path: PathBuf,
        config_path: PathBuf,
        existing: Option<String>,
    ) -> Result<ZellijSetup, String> {
        let base = match &existing {
            Some(text) => text.clone(),
            // A machine without a config: Zellij's default one, plus ask-popup.
            None => default_config().unwrap_or_default(),
        };
        let shown = config_path.display().to_string();
        let merged = match &load {
            Load::File => {
                // config.kdl names the file by its path: one that is not UTF-8 would be written
                // as another path.
                let Some(plugin) = plugin_path.to_str() else {
                    return Err(format!(
                        "the plugin's path {} is not UTF-8, and config.kdl cannot name it; config.kdl was left alone. Set ZELLIJ_CONFIG_DIR to a folder whose path is, or load the plugin from its URL (setup zellij --url)",
                        plugin_path.display()
                    ));
                };
                zellij_config::merge(&base, &shown, plugin)
            }
            Load::Url(url) => zellij_config::merge_url(&base, &shown, url),
        }
        .map_err(|e| e.to_string())?;
        let new_config = match (merged, &existing) {
            (Some(text), _) => Some(text),
            (None, None) => Some(base.clone()),
            (None, Some(_)) => None,
        };
        let plugin_current = match load {
            Load::File => std::fs::read(&plugin_path).is_ok_and(|bytes| bytes == PLUGIN),
            Load::Url(_) => true,
        };
        Ok(ZellijSetup {
            load,
            dir,
            plugin_path,
            config_path,
            existing,
            base,
            new_config,
            plugin_current,
        })
    }

    /// Without --write: what it would write, and the lines it would add to config.kdl.
    /// The alias's location, as config.kdl has it.
    fn location(&self) -> String {
        match &self.load {
            Load::File => format!("file:{}", self.plugin_path.display()),
            Load::Url(url) => url.clone(),
        }
    }

    fn say_what_it_would_do(&self) {
        let shown = self.config_path.display();
        if let Load::Url(url) = &self.load {
            say!("Zellij will download the plugin from {url} when it first loads it");
        } else if self.plugin_current {
            say!(
                "{} is this command's plugin already",
                self.plugin_path.display()
            );
        } else {
            say!(
                "Would write the plugin ({} bytes) to {}",
                PLUGIN.len(),
                self.plugin_path.display()
            );
        }
        match &self.new_config {
            None => say!("{shown} has the alias and the binding already"),
            Some(text) => {
                let before: Vec<&str> = self.base.lines().collect();
                say!(
                    "Would {} {shown}, adding:",
                    if self.existing.is_some() {
                        "edit"
                    } else {
                        "create"
                    }
                );
                crate::terminal::print(&terminal::for_person(&added_lines(&before, text)));
            }
        }
        say!("Run again with --write to do it.");
    }

    /// Writes the plugin file and config.kdl where they change, keeping the old config as
    /// config.kdl.bak.
    fn write(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        // The plugin's cache folder, made before Zellij makes it: private, as the record of
        // questionnaires the plugin writes there must be (see `history::keep_private`).
        if let Some(cache) = crate::history::command::zellij_cache_dir() {
            let dir = crate::history::plugin_cache_dir(&cache, &self.location());
            std::fs::create_dir_all(&dir)?;
            crate::history::keep_private(&dir.join(ask_popup_protocol::history::FILE_NAME))?;
        }
        if !self.plugin_current {
            std::fs::create_dir_all(self.dir.join("plugins"))?;
            atomic_file::write(&self.plugin_path, PLUGIN, READABLE)?;
        }
        if let Some(text) = &self.new_config {
            if self.existing.is_some() {
                atomic_file::copy(
                    &self.config_path,
                    &self.config_path.with_extension("kdl.bak"),
                )?;
            }
            atomic_file::write(&self.config_path, text.as_bytes(), READABLE)?;
        }
        Ok(())
    }

    /// With --write, once written: what it wrote.
    fn say_what_it_did(&self) {
        let shown = self.config_path.display();
        if !self.plugin_current {
            say!("Wrote the plugin to {}", self.plugin_path.display());
        }
        if let Load::Url(url) = &self.load {
            match &self.new_config {
                None => say!("{shown} has the alias, loading {url}, and the binding already"),
                Some(_) => say!(
                    "Wrote {shown}: the `ask-popup` alias loads the plugin from {url}, and Ctrl o, then {} brings a hidden popup back{}",
                    zellij_config::BIND_KEY,
                    if self.existing.is_some() { " (the old file is config.kdl.bak)" } else { "" }
                ),
            }
            say!("Zellij downloads it the first time an agent asks (restart a running session to load it).");
            return;
        }
        match (&self.new_config, &self.existing) {
            (None, _) => say!("{shown} has the alias and the binding already"),
            (Some(_), Some(_)) => say!(
                "Added the `ask-popup` alias and the binding (Ctrl o, then {}) to {shown} (the old file is config.kdl.bak)",
                zellij_config::BIND_KEY
            ),
            (Some(_), None) => say!(
                "Wrote {shown}: Zellij's default config with the `ask-popup` alias and the binding (Ctrl o, then {})",
                zellij_config::BIND_KEY
            ),
        }
    }
}

fn remove_zellij(
    write: bool,
    plugin_path: &Path,
    config_path: &Path,
    existing: Option<&str>,
) -> i32 {
    let shown = config_path.display().to_string();
    let removed = match existing.map(|text| zellij_config::remove(text, &shown)) {
        None => None,
        Some(Ok(removed)) => removed,
        Some(Err(e)) => {
            say_err!("ask-popup setup zellij: {e}");
            return 1;
        }
    };
    let plugin_there = plugin_path.exists();
    if !write {
        if plugin_there {
            say!("Would delete {}", plugin_path.display());
        }
        if removed.is_some() {
            say!("Would take the `ask-popup` alias and its binding out of {shown}");
        }
        if !plugin_there && removed.is_none() {
            say!("Nothing of ask-popup to remove from Zellij");
        } else {
            say!("Run again with --write to do it.");
        }
        return 0;
    }
    if plugin_there {
        if let Err(e) = std::fs::remove_file(plugin_path) {
            say_err!("ask-popup setup zellij: {e}");
            return 1;
        }
        say!("Deleted {}", plugin_path.display());
        // Its dir too, when nothing else is in it.
        if let Some(dir) = plugin_path.parent() {
            let _ = std::fs::remove_dir(dir);
        }
    }
    if let Some(text) = removed {
        // A config that setup wrote (Zellij's default one) goes with what it added.
        let ours = default_config().is_some_and(|default| default == text);
        let done = if ours {
            std::fs::remove_file(config_path)
        } else {
            atomic_file::write(config_path, text.as_bytes(), READABLE)
        };
        if let Err(e) = done {
            say_err!("ask-popup setup zellij: {e}");
            return 1;
        }
        if ours {
            say!("Deleted {shown}: it was Zellij's default config and ask-popup's additions");
        } else {
            say!("Took the `ask-popup` alias and its binding out of {shown}");
        }
    }
    0
}

/// The lines of `after` that are not in `before` (in order), each indented for the listing.
fn added_lines(before: &[&str], after: &str) -> String {
    let mut old = before.iter().peekable();
    let mut out = String::new();
    for line in after.lines() {
        if old.peek() == Some(&&line) {
            old.next();
        } else {
            out.push_str(&format!("  + {line}\n"));
        }
    }
    out
}

/// Edits the file at `path` (`what` names it in messages) with `change` (None: nothing to do),
/// or, without `write`, says what it would do. The old text is kept as `<file>.bak`; a new
/// file gets `new_mode` (`atomic_file::OWNER_ONLY` for one that may hold secrets).
pub fn edit(
    path: &Path,
    what: &str,
    write: bool,
    new_mode: u32,
    change: impl FnOnce(&str) -> Result<Option<String>, String>,
) -> i32 {
    let existing = match read_text(path) {
        Ok(text) => text,
        Err(e) => {
            say_err!("ask-popup setup {what}: {e}");
            return 1;
        }
    };
    let new = match change(existing.as_deref().unwrap_or("")) {
        Ok(new) => new,
        Err(e) => {
            say_err!("ask-popup setup {what}: left {} alone: {e}", path.display());
            return 1;
        }
    };
    let Some(new) = new else {
        say!("{}: nothing to change", path.display());
        return 0;
    };
    if !write {
        say!("Would change {}", path.display());
        return 0;
    }
    let backup = PathBuf::from(format!("{}.bak", path.display()));
    let written = (|| -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        if existing.is_some() {
            atomic_file::copy(path, &backup)?;
        }
        atomic_file::write(path, new.as_bytes(), new_mode)
    })();
    match written {
        Ok(()) => {
            say!("Changed {}", path.display());
            if existing.is_some() {
                say!("the previous file is kept as {}", backup.display());
            }
            0
        }
        Err(e) => {
            say_err!(
                "ask-popup setup {what}: cannot write {}: {e}",
                path.display()
            );
            1
        }
    }
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// `ask-popup setup claude [--approvals] [--write] [--remove]`.
pub fn setup_claude(write: bool, remove: bool, approvals: bool) -> i32 {
    let command = format!(
        "{} claude-hook",
        setup::shell_word(&crate::zellij::programs::exe())
    );
    if !write && !remove {
        crate::terminal::print(&setup::claude_snippet(&command));
        if approvals {
            let approval = format!(
                "{} claude-approval",
                setup::shell_word(&crate::zellij::programs::exe())
            );
            crate::terminal::print(&setup::CLAUDE_APPROVAL_HOOK.snippet(&approval));
        }
        return 0;
    }
    claude_file(write, remove, approvals)
}

/// Claude Code's settings.json with the hook merged in (and, with `approvals`, the permission
/// prompts' hook), or both taken out.
fn claude_file(write: bool, remove: bool, approvals: bool) -> i32 {
    let command = format!(
        "{} claude-hook",
        setup::shell_word(&crate::zellij::programs::exe())
    );
    let approval = format!(
        "{} claude-approval",
        setup::shell_word(&crate::zellij::programs::exe())
    );
    let Some(home) = home() else {
        say_err!("ask-popup setup claude: HOME is not set");
        return 1;
    };
    let path = home.join(".claude").join("settings.json");
    // Claude Code's settings can carry API keys (its `env`).
    let hook = edit(&path, "claude", write, OWNER_ONLY, |text| {
        edit_hooks(
            text,
            remove,
            &[(setup::CLAUDE_HOOK, &command)],
            (approvals || remove).then_some((setup::CLAUDE_APPROVAL_HOOK, approval.as_str())),
        )
    });
    hook.max(skill("claude", write, remove))
}

/// `text` (a hooks file) with `hooks` merged in, and `approvals` too when given; with
/// `remove`, without any of them or the approvals hook (whether given or not: `--remove` takes
/// out all that setup added). `None` when nothing changes.
fn edit_hooks(
    text: &str,
    remove: bool,
    hooks: &[(setup::Hook, &str)],
    approvals: Option<(setup::Hook, &str)>,
) -> Result<Option<String>, String> {
    let mut current = text.to_owned();
    let mut changed = false;
    for &(hook, command) in hooks.iter().chain(approvals.as_ref()) {
        let edited = if remove {
            hook.remove(&current)
        } else {
            hook.merge(&current, command)
        };
        if let Some(new) = edited.map_err(|e| e.to_string())? {
            current = new;
            changed = true;
        }
    }
    Ok(changed.then_some(current))
}

/// `ask-popup setup claude-mcp [--write] [--remove]`: the `claude mcp add` line to run, and,
/// written, Claude Code's settings that keep the server's calls in the foreground.
pub fn setup_claude_mcp(write: bool, remove: bool) -> i32 {
    let (name, value) = setup::CLAUDE_MCP_ENV;
    if !write && !remove {
        crate::terminal::print(&setup::claude_mcp_line(&crate::zellij::programs::exe()));
        say_err!(
            "Claude Code moves an MCP call that runs past 2 minutes to the background, and its \
             model goes on without the answer: `ask-popup setup claude-mcp --write` sets \
             {name}={value} in ~/.claude/settings.json so that it waits for the user."
        );
        return 0;
    }
    let Some(home) = home() else {
        say_err!("ask-popup setup claude-mcp: HOME is not set");
        return 1;
    };
    let path = home.join(".claude").join("settings.json");
    let status = edit(&path, "claude-mcp", write, OWNER_ONLY, |text| {
        if remove {
            setup::remove_claude_mcp_env(text)
        } else {
            setup::merge_claude_mcp_env(text)
        }
        .map_err(|e| e.to_string())
    });
    if status == 0 && write && !remove {
        say!("Now add the server to Claude Code:");
        crate::terminal::print(&setup::claude_mcp_line(&crate::zellij::programs::exe()));
    }
    status
}

/// `ask-popup setup codex [--write] [--remove]`.
pub fn setup_codex(write: bool, remove: bool, approvals: bool) -> i32 {
    let exe = crate::zellij::programs::exe();
    if !write && !remove {
        crate::terminal::print(&setup::codex_snippet(&exe));
        let command = format!("{} codex-hook", setup::shell_word(&exe));
        say_err!(
            "Then, in ~/.codex/hooks.json ($CODEX_HOME), the hook that asks Codex's own \
             request_user_input in the popup (trust it once in Codex's /hooks):"
        );
        crate::terminal::print(&setup::CODEX_HOOK.snippet(&command));
        if approvals {
            let approval = format!("{} codex-approval", setup::shell_word(&exe));
            say_err!("And the hook that asks Codex's permission prompts in the popup:");
            crate::terminal::print(&setup::CODEX_APPROVAL_HOOK.snippet(&approval));
        }
        return 0;
    }
    codex_file(write, remove, approvals)
}

/// Codex's config.toml with the table merged in (or taken out).
fn codex_file(write: bool, remove: bool, approvals: bool) -> i32 {
    let exe = crate::zellij::programs::exe();
    let Some(path) = setup::codex_config(|name| std::env::var(name).ok()) else {
        say_err!("ask-popup setup codex: HOME is not set");
        return 1;
    };
    // Codex's config can carry the MCP servers' keys (their `env`).
    let table = edit(&path, "codex", write, OWNER_ONLY, |text| {
        if remove {
            setup::remove_codex(text)
        } else {
            setup::merge_codex(text, &exe)
        }
        .map_err(|e| e.to_string())
    });
    let command = format!("{} codex-hook", setup::shell_word(&exe));
    let approval = format!("{} codex-approval", setup::shell_word(&exe));
    let hooks_path = path.with_file_name("hooks.json");
    let hook = edit(&hooks_path, "codex", write, OWNER_ONLY, |text| {
        edit_hooks(
            text,
            remove,
            &[(setup::CODEX_HOOK, &command)],
            (approvals || remove).then_some((setup::CODEX_APPROVAL_HOOK, approval.as_str())),
        )
    });
    if hook == 0 && write && !remove {
        say!(
            "Codex runs a new hook only once you trust it: in Codex, open /hooks and trust \
             ask-popup's request_user_input hook (until then Codex asks in its own dialog)."
        );
    }
    table.max(hook).max(skill("codex", write, remove))
}

/// `ask-popup setup pi [--write] [--remove]`: the extension's files in Pi's extensions dir,
/// and the skill in its skills dir (the Pi package ships both).
pub fn setup_pi(write: bool, remove: bool) -> i32 {
    let Some(agent) = setup::pi_agent_dir(|name| std::env::var(name).ok()) else {
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
    let dir = agent.join("extensions").join(setup::PI_EXTENSION_DIR);
    if remove {
        if !dir.exists() {
            say!("{}: nothing to remove", dir.display());
            return 0;
        }
        if !write {
            say!("Would delete {}", dir.display());
            return 0;
        }
        return match std::fs::remove_dir_all(&dir) {
            Ok(()) => {
                say!("Deleted {}", dir.display());
                0
            }
            Err(e) => {
                say_err!("ask-popup setup pi: {e}");
                1
            }
        };
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
    if !write {
        say!(
            "Would write the ask_user_question extension to {}",
            dir.display()
        );
        return 0;
    }
    match write_files(&dir, &setup::PI_EXTENSION) {
        Ok(()) => {
            say!("Wrote the ask_user_question extension to {}", dir.display());
            0
        }
        Err(e) => {
            say_err!("ask-popup setup pi: {e}");
            1
        }
    }
}

/// Writes `files` (`(path in dir, text)`) into `dir`, each whole, making the folders they need.
fn write_files(dir: &Path, files: &[(&str, &str)]) -> std::io::Result<()> {
    for (file, text) in files {
        let path = dir.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        atomic_file::write(&path, text.as_bytes(), READABLE)?;
    }
    Ok(())
}

/// Whether `dir` holds every one of `files` as given.
fn files_current(dir: &Path, files: &[(&str, &str)]) -> bool {
    files
        .iter()
        .all(|(file, text)| std::fs::read_to_string(dir.join(file)).is_ok_and(|t| t == *text))
}

/// The package source in Pi's settings (under Pi's agent dir `agent`) that loads the extension,
/// as `pi install` put it there.
pub fn pi_package(agent: &Path) -> Option<String> {
    let settings = std::fs::read_to_string(agent.join("settings.json")).ok()?;
    setup::pi_package_source(&settings)
}

/// Whether `dir` holds the extension this command carries, file for file.
pub fn pi_extension_current(dir: &Path) -> bool {
    files_current(dir, &setup::PI_EXTENSION)
}

/// `ask-popup setup opencode [--write] [--remove]`: the MCP server's entry in opencode's
/// config (printed without --write), and the plugin that answers opencode's own `question`
/// tool in the popup, in opencode's plugin dir.
pub fn setup_opencode(write: bool, remove: bool, approvals: bool) -> i32 {
    if !write && !remove {
        crate::terminal::print(&opencode::snippet(&crate::zellij::programs::exe()));
    }
    opencode_files(write, remove, approvals)
}

/// opencode's config with the entry merged in (or taken out), and the plugin written (or
/// deleted).
fn opencode_files(write: bool, remove: bool, approvals: bool) -> i32 {
    let exe = crate::zellij::programs::exe();
    let Some(dir) = opencode::config_dir(|name| std::env::var(name).ok()) else {
        say_err!("ask-popup setup opencode: HOME is not set");
        return 1;
    };
    let path = opencode::config_file(&dir, Path::exists);
    let config = if remove {
        remove_opencode_entry(&path, write)
    } else {
        // opencode's config can carry the providers' keys.
        edit(&path, "opencode", write, OWNER_ONLY, |text| {
            opencode::merge(text, &exe).map_err(|e| e.to_string())
        })
    };
    let plugins = dir.join(opencode::PLUGIN_DIR);
    // Before the plugin, whose folder goes when nothing else is in it.
    let approvals = if approvals || remove {
        opencode_approvals(&plugins, write, remove)
    } else {
        0
    };
    let plugin = opencode_plugin(&plugins, write, remove);
    config
        .max(approvals)
        .max(plugin)
        .max(skill("opencode", write, remove))
}

/// The plugin that asks opencode's permission prompts in the popup, written into `dir` (or
/// deleted, with `remove`).
fn opencode_approvals(dir: &Path, write: bool, remove: bool) -> i32 {
    let path = dir.join(opencode::APPROVALS_PLUGIN.0);
    if let Some(theirs) = not_setups(dir, &[opencode::APPROVALS_PLUGIN]).first() {
        return leave_theirs(theirs, remove);
    }
    if remove {
        if !path.exists() {
            return 0;
        }
        if !write {
            say!("Would delete {}", path.display());
            return 0;
        }
        return match std::fs::remove_file(&path) {
            Ok(()) => {
                say!("Deleted {}", path.display());
                0
            }
            Err(e) => {
                say_err!("ask-popup setup opencode: {e}");
                1
            }
        };
    }
    if opencode_approvals_current(dir) {
        say!("{}: the approvals plugin is there already", path.display());
        return 0;
    }
    if !write {
        say!(
            "Would write the plugin that asks opencode's permission prompts in the popup to {}",
            path.display()
        );
        return 0;
    }
    match write_files(dir, &[opencode::APPROVALS_PLUGIN]) {
        Ok(()) => {
            say!(
                "Wrote the plugin that asks opencode's permission prompts in the popup to {}",
                path.display()
            );
            0
        }
        Err(e) => {
            say_err!("ask-popup setup opencode: {e}");
            1
        }
    }
}

/// The `ask-user` skill in `agent`'s skill folder (`setup::skill_dir`): written, or deleted
/// with `remove`.
fn skill(agent: &str, write: bool, remove: bool) -> i32 {
    let Some(dir) = setup::skill_dir(agent, |name| std::env::var(name).ok()) else {
        say_err!("ask-popup setup {agent}: HOME is not set");
        return 1;
    };
    let file = dir.join("SKILL.md");
    if remove {
        if !file.exists() {
            say!("{}: no ask-user skill to remove", dir.display());
            return 0;
        }
        if !write {
            say!("Would delete the ask-user skill {}", dir.display());
            return 0;
        }
        return match std::fs::remove_file(&file) {
            Ok(()) => {
                // Its folder, and the skills folder, when nothing else is in them.
                if std::fs::remove_dir(&dir).is_ok() {
                    if let Some(skills) = dir.parent() {
                        let _ = std::fs::remove_dir(skills);
                    }
                }
                say!("Deleted the ask-user skill {}", dir.display());
                0
            }
            Err(e) => {
                say_err!("ask-popup setup {agent}: {e}");
                1
            }
        };
    }
    if skill_current(&dir) {
        say!("{}: the ask-user skill is there already", file.display());
        return 0;
    }
    if !write {
        say!("Would write the ask-user skill to {}", file.display());
        return 0;
    }
    match write_files(&dir, &[("SKILL.md", setup::SKILL)]) {
        Ok(()) => {
            say!("Wrote the ask-user skill to {}", file.display());
            0
        }
        Err(e) => {
            say_err!("ask-popup setup {agent}: {e}");
            1
        }
    }
}

/// Whether the skill folder `dir` holds the skill this command carries.
pub fn skill_current(dir: &Path) -> bool {
    files_current(dir, &[("SKILL.md", setup::SKILL)])
}

/// Takes the entry out of opencode's config; a config that setup wrote (nothing else in it)
/// goes with it.
fn remove_opencode_entry(path: &Path, write: bool) -> i32 {
    let removed = match read_text(path).map(|text| text.map(|t| opencode::remove(&t))) {
        Ok(Some(Ok(Some(text)))) => text,
        Ok(Some(Err(e))) => {
            say_err!(
                "ask-popup setup opencode: left {} alone: {e}",
                path.display()
            );
            return 1;
        }
        Err(e) => {
            say_err!("ask-popup setup opencode: {e}");
            return 1;
        }
        Ok(None) | Ok(Some(Ok(None))) => {
            say!("{}: nothing to change", path.display());
            return 0;
        }
    };
    if removed != opencode::skeleton() {
        return edit(path, "opencode", write, OWNER_ONLY, |_| Ok(Some(removed)));
    }
    if !write {
        say!("Would delete {}: setup wrote it", path.display());
        return 0;
    }
    match std::fs::remove_file(path) {
        Ok(()) => {
            say!("Deleted {}: it held only what setup wrote", path.display());
            0
        }
        Err(e) => {
            say_err!("ask-popup setup opencode: {e}");
            1
        }
    }
}

/// The plugin's files in opencode's plugin dir `dir`: written, or deleted with `remove`.
fn opencode_plugin(dir: &Path, write: bool, remove: bool) -> i32 {
    let main = dir.join(opencode::PLUGIN[0].0);
    let theirs = not_setups(dir, &opencode::PLUGIN);
    if !theirs.is_empty() && !remove {
        return leave_theirs(&theirs[0], remove);
    }
    for path in &theirs {
        leave_theirs(path, remove);
    }
    if remove {
        let there: Vec<PathBuf> = opencode::PLUGIN
            .iter()
            .map(|(file, _)| dir.join(file))
            .filter(|p| p.exists() && !theirs.contains(p))
            .collect();
        if there.is_empty() {
            say!("{}: no ask-popup plugin to remove", dir.display());
            return 0;
        }
        if !write {
            say!("Would delete the ask-popup plugin from {}", dir.display());
            return 0;
        }
        let deleted = (|| -> std::io::Result<()> {
            for file in &there {
                std::fs::remove_file(file)?;
            }
            // The plugin's data folder, then the plugin dir, when nothing else is in them.
            for (file, _) in opencode::PLUGIN.iter().rev() {
                if let Some(parent) = dir.join(file).parent() {
                    let _ = std::fs::remove_dir(parent);
                }
            }
            Ok(())
        })();
        return match deleted {
            Ok(()) => {
                say!("Deleted the ask-popup plugin from {}", dir.display());
                0
            }
            Err(e) => {
                say_err!("ask-popup setup opencode: {e}");
                1
            }
        };
    }
    if opencode_plugin_current(dir) {
        say!("{}: the plugin is there already", main.display());
        return 0;
    }
    if !write {
        say!(
            "Would write the plugin that answers opencode's question tool in the popup to {}",
            main.display()
        );
        return 0;
    }
    match write_files(dir, &opencode::PLUGIN) {
        Ok(()) => {
            say!(
                "Wrote the plugin that answers opencode's question tool in the popup to {}",
                main.display()
            );
            0
        }
        Err(e) => {
            say_err!("ask-popup setup opencode: {e}");
            1
        }
    }
}

/// The files of `files` in opencode's plugin dir `dir` that are there and not what setup writes
/// (`opencode::is_plugin_file`): the user's own, which setup neither replaces nor deletes.
fn not_setups(dir: &Path, files: &[(&str, &str)]) -> Vec<PathBuf> {
    files
        .iter()
        .filter_map(|(file, _)| {
            let path = dir.join(file);
            let text = std::fs::read(&path).ok()?;
            let ours = opencode::is_plugin_file(file, &String::from_utf8_lossy(&text));
            (!ours).then_some(path)
        })
        .collect()
}

/// Says that the file at `path`, not setup's, is left alone: with `remove`, as a note (there
/// is nothing of ours to take out), else as an error (ours cannot go there).
fn leave_theirs(path: &Path, remove: bool) -> i32 {
    if remove {
        say!(
            "{}: not ask-popup's plugin (a file of your own?), left alone",
            path.display()
        );
        0
    } else {
        say_err!(
            "ask-popup setup opencode: {} is not ask-popup's plugin (a file of your own?): left alone; move it, then run this again",
            path.display()
        );
        1
    }
}

/// Whether opencode's plugin dir `dir` holds the plugin this command carries, file for file.
pub fn opencode_plugin_current(dir: &Path) -> bool {
    files_current(dir, &opencode::PLUGIN)
}

/// Whether `dir` holds this command's approvals plugin for opencode.
pub fn opencode_approvals_current(dir: &Path) -> bool {
    files_current(dir, &[opencode::APPROVALS_PLUGIN])
}

/// `ask-popup setup [--write] [--remove]`: Zellij, and each agent found on PATH.
pub fn setup_all(write: bool, remove: bool) -> i32 {
    let mut status = 0;
    say!("Zellij:");
    status = status.max(setup_zellij(write, remove, None));
    type Setup = fn(bool, bool) -> i32;
    let agents: [(&str, &str, Setup); 4] = [
        // Approvals stay opt-in (`setup claude --approvals`); taking out removes them too.
        ("claude", "Claude Code", |write, remove| {
            claude_file(write, remove, false)
        }),
        ("codex", "Codex", |write, remove| {
            codex_file(write, remove, false)
        }),
        ("pi", "Pi", setup_pi),
        ("opencode", "opencode", |write, remove| {
            opencode_files(write, remove, false)
        }),
    ];
    for (program, name, run) in agents {
        if find_on_path(program).is_none() {
            say!("{name}: not installed (no `{program}` on PATH)");
            continue;
        }
        say!("{name}:");
        status = status.max(run(write, remove));
    }
    status
}
