//! `ask-popup setup zellij`: the plugin file written into Zellij's config dir and the alias and
//! binding merged into its `config.kdl` (or both taken out), and what `setup web` and the doctor
//! read of that dir. What to change is `super::config`.

use super::config;
use super::plugin::{BIND_KEY, PLUGIN, PLUGIN_FILE, VERSION};
use crate::setup::files::read_text;
use crate::setup::report::Change;
use crate::terminal;
use crate::zellij::programs::ZellijCli;
use ask_popup_protocol::atomic_file::{self, READABLE};
use std::path::{Path, PathBuf};

/// Zellij's config dir: `arg`, else where Zellij finds it (`super::config::config_dir`).
pub fn config_dir(arg: Option<&Path>) -> Option<PathBuf> {
    config::config_dir(arg, |name| std::env::var(name).ok(), Path::is_dir)
}

/// Zellij's own default config (`zellij setup --dump-config`), for a machine with none yet.
pub fn default_config() -> Option<String> {
    let mut dump = ZellijCli::find()?.command();
    dump.args(["setup", "--dump-config"]);
    let text = crate::zellij::programs::output_of(dump)?;
    // Only a config that setup can read back (a `zellij` that is not Zellij prints anything).
    let readable = config::inspect(&text, "the default config").is_ok();
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
        super::plugin::release_url(VERSION)
    } else {
        url.to_owned()
    };
    if !super::plugin::is_url(&url) {
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
                config::merge(&base, &shown, plugin)
            }
            Load::Url(url) => config::merge_url(&base, &shown, url),
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
        // The plugin's cache folder, made before Zellij makes it, private and marked so: the
        // plugin writes the record there from the first question (see `history::private`).
        if let Some(cache) = crate::history::command::zellij_cache_dir() {
            let dir = crate::history::plugin_cache_dir(&cache, &self.location());
            std::fs::create_dir_all(&dir)?;
            if let Err(why) = crate::history::private::make_private(&dir) {
                say_err!(
                    "ask-popup setup zellij: no record of questionnaires will be kept in {}: {why}",
                    dir.display()
                );
            }
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
                    BIND_KEY,
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
                BIND_KEY
            ),
            (Some(_), None) => say!(
                "Wrote {shown}: Zellij's default config with the `ask-popup` alias and the binding (Ctrl o, then {})",
                BIND_KEY
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
    let removed = match existing.map(|text| config::remove(text, &shown)) {
        None => None,
        Some(Ok(removed)) => removed,
        Some(Err(e)) => {
            say_err!("ask-popup setup zellij: {e}");
            return 1;
        }
    };
    let plugin_there = plugin_path.exists();
    if plugin_there {
        let deleted = Change::delete(plugin_path.display()).make("zellij", write, || {
            std::fs::remove_file(plugin_path)?;
            // Its dir too, when nothing else is in it.
            if let Some(dir) = plugin_path.parent() {
                let _ = std::fs::remove_dir(dir);
            }
            Ok(())
        });
        if deleted != 0 {
            return deleted;
        }
    }
    if !write {
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
