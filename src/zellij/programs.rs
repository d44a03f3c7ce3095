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

/// Whether a `zellij [--session S] …` call did not reach its session because Zellij's CLI did
/// not see it live, which Zellij 0.45.1 reports now and then for a busy but live session: its
/// probe (`assert_socket`) gives up on one unanswered `ConnStatus`. It says so on stderr, as
/// "There is no active session!" (no other session), or as "Session 'S' not found. The
/// following sessions are active:" (others live), after which it lists them: on stdout, exiting
/// 0, when there are several. Such a call sent nothing to the session, so it is safe to run
/// again; its exit status says nothing.
pub fn missed_session(stderr: &[u8]) -> bool {
    let stderr = String::from_utf8_lossy(stderr);
    let said = stderr.lines().next().unwrap_or_default().trim();
    said == "There is no active session!"
        || (said.starts_with("Session '")
            && said.ends_with("' not found. The following sessions are active:"))
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

#[cfg(test)]
mod tests {
    use super::missed_session;

    #[test]
    fn a_call_that_missed_its_session_is_told_from_one_that_failed() {
        // What Zellij 0.45.1's CLI says when its probe of the session went unanswered: alone,
        // beside one other session (exit 1), beside several (the list on stdout, exit 0).
        assert!(missed_session(b"There is no active session!\n"));
        assert!(missed_session(
            b"Session 'apz11463136' not found. The following sessions are active:\napi\n"
        ));
        assert!(missed_session(
            b"Session 'work' not found. The following sessions are active:\n"
        ));
        for other in [
            &b""[..],
            b"Error: the plugin was not found\n",
            b"No active zellij sessions found.\n",
            b"some output\nThere is no active session!\n",
        ] {
            assert!(
                !missed_session(other),
                "{:?}",
                String::from_utf8_lossy(other)
            );
        }
    }
}
