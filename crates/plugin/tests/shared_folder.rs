//! The folder the plugin's instances share (Zellij's `/cache`), on a real temporary folder:
//! replies kept across a reload, and the record.

use ask_popup_plugin::shared_folder::SharedFolder;
use std::time::{Duration, SystemTime};
use tempfile::TempDir;

#[test]
fn kept_replies_are_taken_back_by_the_same_session_only_and_forgotten() {
    let dir = TempDir::new().unwrap();
    let folder = SharedFolder::at(dir.path());
    folder.keep(1, "kept by one");
    assert_eq!(folder.take(2), None);
    assert_eq!(folder.take(1).as_deref(), Some("kept by one"));
    // Taking reads; only forgetting deletes.
    assert!(folder.kept_path(1).exists());
    folder.forget(1);
    assert!(!folder.kept_path(1).exists());
    assert_eq!(folder.take(1), None);
}

#[test]
fn stale_kept_replies_are_not_taken_and_other_sessions_stale_files_go_on_the_next_keep() {
    let dir = TempDir::new().unwrap();
    let folder = SharedFolder::at(dir.path());
    folder.keep(1, "old");
    folder.keep(2, "old too");
    folder.keep(3, "fresh");
    let two_minutes_ago = SystemTime::now() - Duration::from_secs(120);
    for pid in [1, 2] {
        let file = std::fs::File::options()
            .write(true)
            .open(folder.kept_path(pid))
            .unwrap();
        file.set_modified(two_minutes_ago).unwrap();
    }
    assert_eq!(folder.take(1), None);
    assert!(
        !folder.kept_path(1).exists(),
        "a stale file found is deleted"
    );
    folder.keep(4, "new");
    assert!(
        !folder.kept_path(2).exists(),
        "another session's stale file stayed"
    );
    assert!(
        folder.kept_path(3).exists(),
        "another session's fresh file went"
    );
    assert_eq!(folder.take(4).as_deref(), Some("new"));
}

/// `dir` as the command leaves it once it made it private: marked, with the record (0600).
fn made_private(dir: &TempDir) {
    use ask_popup_protocol::history::{FILE_NAME, PRIVATE_MARK};
    std::fs::write(dir.path().join(PRIVATE_MARK), "").unwrap();
    std::fs::write(dir.path().join(FILE_NAME), "").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let private = std::fs::Permissions::from_mode(0o600);
        std::fs::set_permissions(dir.path().join(FILE_NAME), private).unwrap();
    }
}

fn entry_line(n: u64) -> String {
    ask_popup_protocol::history::Entry {
        asked_ms: 1_700_000_000_000 + n,
        ended_ms: 1_700_000_000_000 + n,
        agent: format!("agent{n}"),
        ending: "answered".to_owned(),
        ..Default::default()
    }
    .to_line()
}

#[test]
fn the_record_waits_until_the_command_made_the_folder_private() {
    use ask_popup_protocol::history::NO_RECORD;
    let dir = TempDir::new().unwrap();
    let mut folder = SharedFolder::at(dir.path());
    // A folder Zellij made: nothing written there but why.
    assert!(folder.record(&entry_line(1)));
    assert!(folder.record(&entry_line(2)));
    assert!(!folder.record_path().exists());
    let notice = std::fs::read_to_string(dir.path().join(NO_RECORD)).unwrap();
    assert!(notice.contains("keeps no record"), "{notice}");
    // The popup's list shows them all the same.
    assert_eq!(folder.recent_history().len(), 2);
    // A mark without the record the command makes with it is not enough: the plugin never
    // makes the record (it would be open to others).
    std::fs::write(
        dir.path().join(ask_popup_protocol::history::PRIVATE_MARK),
        "",
    )
    .unwrap();
    assert!(folder.write_held());
    assert!(!folder.record_path().exists());
    made_private(&dir);
    assert!(!folder.write_held());
    assert!(!folder.record(&entry_line(3)));
    let text = std::fs::read_to_string(folder.record_path()).unwrap();
    let agents: Vec<String> = ask_popup_protocol::history::read(&text)
        .into_iter()
        .map(|e| e.agent)
        .collect();
    assert_eq!(agents, ["agent1", "agent2", "agent3"]);
    assert_eq!(folder.recent_history().len(), 3);
}

#[test]
fn the_record_is_appended_to_line_by_line() {
    let dir = TempDir::new().unwrap();
    made_private(&dir);
    let mut folder = SharedFolder::at(dir.path());
    assert!(folder.recent_history().is_empty());
    let line = |n: u32| {
        serde_json::json!({
            "v": 1, "ts": 1_700_000_000_000u64 + u64::from(n), "session": "s", "agent": "a",
            "questions": [{"question": format!("Q{n}?"), "header": "H", "options": ["A"]}],
            "outcome": "answered"
        })
        .to_string()
    };
    folder.record(&line(1));
    folder.record(&line(2));
    let text = std::fs::read_to_string(folder.record_path()).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
}

#[test]
fn a_record_that_cannot_be_written_is_not_a_panic() {
    let mut folder = SharedFolder::at("/nonexistent/ask-popup-test-folder");
    folder.record("{}");
    folder.keep(1, "x");
    assert_eq!(folder.take(1), None);
    assert!(folder.recent_history().is_empty());
}
