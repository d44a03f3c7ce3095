//! The programs the command runs or looks for, found on PATH: Zellij's CLI, which every
//! `zellij` the command starts (the question's pipes, setup, the doctor, the notification's look
//! at the web server) is found and run through, and the agents setup and the doctor look for.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Zellij's CLI: the first executable `zellij` on PATH.
#[derive(Clone, Debug)]
pub struct ZellijCli {
    path: PathBuf,
}

impl ZellijCli {
    /// The `zellij` on PATH, or None when Zellij is not installed (what each caller then says
    /// is its own: `zellij_not_found`, the doctor's "not on PATH", setup's missing default
    /// config).
    pub fn find() -> Option<ZellijCli> {
        find_on_path("zellij").map(|path| ZellijCli { path })
    }

    /// A `zellij` command, to be given its arguments.
    pub fn command(&self) -> Command {
        Command::new(&self.path)
    }
}

/// The first executable file named `program` in a dir of PATH.
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// What `command` prints on stdout, run with no stdin and its stderr dropped; None when it
/// cannot start or fails.
pub fn output_of(mut command: Command) -> Option<String> {
    let out = command
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// This command's path, for the configuration that runs it.
pub fn exe() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(str::to_owned))
        .unwrap_or_else(|| "ask-popup".to_owned())
}
