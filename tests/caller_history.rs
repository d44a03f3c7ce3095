//! `ask-popup history`'s decisions: where the record is, which entries a filter takes, how one
//! reads.

use ask_popup::history::{
    block, json_line, parse_span, record_files, select, when, zellij_cache_dir, Filter, When,
};
use ask_popup_protocol::history::{Entry, RecordedOption, RecordedQuestion, FILE_NAME};
use std::ffi::OsStr;
use std::path::Path;

fn entry(agent: &str, asked_ms: u64, reply: &str) -> Entry {
    Entry {
        asked_ms,
        ended_ms: asked_ms + 5_000,
        session: Some("work".to_owned()),
        agent: agent.to_owned(),
        pane_id: Some(3),
        request_id: Some(format!("id-{asked_ms}")),
        questions: vec![RecordedQuestion {
            question: "Which database?".to_owned(),
            header: "DB".to_owned(),
            multi_select: false,
            options: vec![
                RecordedOption {
                    label: "Postgres".to_owned(),
                    description: String::new(),
                    preview: None,
                },
                RecordedOption {
                    label: "SQLite".to_owned(),
                    description: String::new(),
                    preview: None,
                },
            ],
        }],
        ending: "answered".to_owned(),
        reply: reply.to_owned(),
        approval: None,
        ..Entry::default()
    }
}

const ANSWERED: &str = r#"{"content":[{"type":"text","text":"User has answered your questions: \"Which database?\"=\"SQLite\". You can now continue with the user's answers in mind."}],"details":{"answers":[{"questionIndex":0,"question":"Which database?","kind":"option","answer":"SQLite","notes":"one file"}],"cancelled":false,"globalNote":"ship it"}}"#;

#[test]
fn zellijs_cache_folder_is_where_zellij_puts_it() {
    let cache = zellij_cache_dir(Some(OsStr::new("/x/cache")), Some(OsStr::new("/home/u")));
    let home = zellij_cache_dir(Some(OsStr::new("relative")), Some(OsStr::new("/home/u")));
    if cfg!(target_os = "macos") {
        let mac = Path::new("/home/u/Library/Caches/org.Zellij-Contributors.Zellij");
        assert_eq!(cache.as_deref(), Some(mac));
    } else {
        assert_eq!(cache.as_deref(), Some(Path::new("/x/cache/zellij")));
        assert_eq!(home.as_deref(), Some(Path::new("/home/u/.cache/zellij")));
    }
}

#[test]
fn the_record_of_every_location_the_plugin_was_loaded_from_is_found() {
    let cache = tempfile::tempdir().unwrap();
    let root = cache.path();
    // As Zellij lays it out: the location as a path below the cache, then plugin_cache.
    let file = root.join("file:/home/u/.config/zellij/plugins/ask-popup.wasm/plugin_cache");
    let url = root.join("https:/example.org/releases/v1/ask-popup.wasm/plugin_cache");
    // A session's folder and another plugin's cache hold none.
    let session = root.join("0b6c5f5e-1f4b-4d7e-9a8e-1c2d3e4f5a6b/file:/x/plugin_cache");
    let other = root.join("zellij:link/plugin_cache");
    for dir in [&file, &url, &session, &other] {
        std::fs::create_dir_all(dir).unwrap();
    }
    for dir in [&file, &url, &session] {
        std::fs::write(dir.join(FILE_NAME), "").unwrap();
    }
    std::fs::write(other.join("other.jsonl"), "").unwrap();
    let found = record_files(root);
    assert_eq!(found, [file.join(FILE_NAME), url.join(FILE_NAME)]);
    assert!(record_files(&root.join("missing")).is_empty());
}

#[test]
fn spans_of_time_read_as_people_write_them() {
    assert_eq!(parse_span("90s"), Some(90_000));
    assert_eq!(parse_span("30m"), Some(1_800_000));
    assert_eq!(parse_span(" 2h "), Some(7_200_000));
    assert_eq!(parse_span("3d"), Some(259_200_000));
    assert_eq!(parse_span("1w"), Some(604_800_000));
    for bad in ["", "h", "2", "2y", "-1h", "1.5h", "２h"] {
        assert_eq!(parse_span(bad), None, "{bad:?}");
    }
}

#[test]
fn a_filter_takes_by_agent_session_time_text_and_id_latest_first() {
    let entries = vec![
        entry("claude", 1_000, ANSWERED),
        entry("Codex", 3_000, "{}"),
        entry("claude", 2_000, "{}"),
    ];
    let all = select(entries.clone(), &Filter::default(), 0);
    let order: Vec<u64> = all.iter().map(|e| e.asked_ms).collect();
    assert_eq!(order, [3_000, 2_000, 1_000]);
    assert_eq!(select(entries.clone(), &Filter::default(), 2).len(), 2);
    let by = |filter: Filter| -> Vec<u64> {
        select(entries.clone(), &filter, 0)
            .iter()
            .map(|e| e.asked_ms)
            .collect()
    };
    let agent = |a: &str| Filter {
        agent: Some(a.to_owned()),
        ..Filter::default()
    };
    assert_eq!(by(agent("CLAUDE")), [2_000, 1_000]);
    assert_eq!(by(agent("codex")), [3_000]);
    assert!(by(Filter {
        session: Some("other".to_owned()),
        ..Filter::default()
    })
    .is_empty());
    assert_eq!(
        by(Filter {
            since_ms: Some(2_000),
            ..Filter::default()
        }),
        [3_000, 2_000]
    );
    // Labels are searched in every entry; the answer's notes and the global note too.
    assert_eq!(
        by(Filter {
            search: Some("postgres".to_owned()),
            ..Filter::default()
        }),
        [3_000, 2_000, 1_000]
    );
    for text in ["ONE FILE", "ship"] {
        let found = by(Filter {
            search: Some(text.to_owned()),
            ..Filter::default()
        });
        assert_eq!(found, [1_000], "{text}");
    }
    assert_eq!(
        by(Filter {
            request_id: Some("id-2000".to_owned()),
            ..Filter::default()
        }),
        [2_000]
    );
}

#[test]
fn an_entry_reads_as_when_who_and_each_question_with_its_answer() {
    let text = block(
        &entry("claude", 0, ANSWERED),
        When {
            year: 2026,
            month: 12,
            day: 3,
            hour: 9,
            minute: 5,
        },
    );
    assert_eq!(
        text,
        "2026-12-03 09:05 · claude (pane 3) · session work · answered · id-0\n\
         \x20 DB: Which database?\n\
         \x20   → SQLite\n\
         \x20   note: one file\n\
         \x20 note: ship it"
    );
}

#[test]
fn an_entry_answered_from_the_notification_says_so_and_reads_back() {
    let entry = Entry {
        answered_from: Some("notification".to_owned()),
        ..entry("claude", 0, ANSWERED)
    };
    assert_eq!(Entry::from_line(&entry.to_line()), Some(entry.clone()));
    let when = When {
        year: 2026,
        month: 12,
        day: 3,
        hour: 9,
        minute: 5,
    };
    let text = block(&entry, when);
    assert!(
        text.starts_with(
            "2026-12-03 09:05 · claude (pane 3) · session work · answered (from the \
             notification) · id-0\n"
        ),
        "{text}"
    );
}

#[test]
fn for_scripts_an_entry_is_a_json_line_with_the_replys_details() {
    let line = json_line(&entry("claude", 0, ANSWERED));
    let value: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(value["agent"], "claude");
    assert_eq!(value["details"]["answers"][0]["answer"], "SQLite");
    assert!(value.get("reply").is_none());
    assert!(!line.contains('\n'));
}

/// What an agent may put in a question, an answer or its name to drive a person's terminal:
/// the window title (OSC 0), a colour (CSI), the clipboard (OSC 52), and a C1 CSI.
const INJECTED: &str = "\u{1b}]0;PWNED\u{7}\u{1b}[31mred\u{1b}]52;c;aGk=\u{7}\u{9b}2J\u{9d}0;x\u{9c}\u{202e}\u{2066}\u{200f}\u{61c}";

/// Whether `text` holds what a terminal would obey or reorder by: a control character other
/// than the line break, or a bidi control.
fn drives_a_terminal(text: &str) -> bool {
    text.chars()
        .any(|c| (c.is_control() && c != '\n') || ask_popup_protocol::text::is_bidi_control(c))
}

/// A home whose Zellij cache holds a record of `entry` alone, as the plugin writes it.
fn home_recording(entry: &Entry) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let record = ask_popup::history::plugin_cache_dir(
        &home.path().join("cache/zellij"),
        "file:/p/ask-popup.wasm",
    )
    .join(ask_popup_protocol::history::FILE_NAME);
    std::fs::create_dir_all(record.parent().unwrap()).unwrap();
    std::fs::write(&record, format!("{}\n", entry.to_line())).unwrap();
    home
}

/// What `ask-popup history ARGS` prints in `home` (with `env` on top of nothing else).
fn history_in(home: &tempfile::TempDir, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ask-popup"))
        .arg("history")
        .args(args)
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .envs(env.iter().copied())
        .output()
        .expect("run ask-popup history");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn history_prints_what_agents_wrote_cleaned_and_its_json_exact() {
    let mut tainted = entry(&format!("agent{INJECTED}"), 1_796_000_000_000, ANSWERED);
    tainted.questions[0].question = format!("Which {INJECTED} database?");
    tainted.questions[0].header = format!("D{INJECTED}B");
    tainted.reply = ANSWERED.replace(
        "one file",
        &format!("one{INJECTED}file")
            .replace('\u{1b}', "\\u001b")
            .replace('\u{7}', "\\u0007"),
    );
    // Each line of its block: no control character, no line break of its own.
    for line in tainted.block("2026-12-03 10:00") {
        assert!(
            !drives_a_terminal(&line) && !line.contains('\n'),
            "{line:?}"
        );
    }

    // `ask-popup history`, as a person runs it, on a record holding it.
    let home = home_recording(&tainted);
    let run = |args: &[&str]| history_in(&home, args, &[]);
    let shown = run(&[]);
    assert!(
        shown.contains("PWNED") && shown.contains("Which"),
        "{shown}"
    );
    assert!(
        !drives_a_terminal(&shown),
        "a control character reached the terminal: {shown:?}"
    );
    // For scripts: exact, and still nothing raw that a terminal obeys or reorders by.
    let json = run(&["--json"]);
    assert!(!drives_a_terminal(&json), "{json:?}");
    assert!(
        json.contains("\\u202e") && json.contains("\\u009b"),
        "{json}"
    );
    let read: serde_json::Value = serde_json::from_str(json.trim()).expect("one JSON line");
    assert_eq!(read["agent"], tainted.agent.as_str());
    assert_eq!(
        read["questions"][0]["question"],
        tainted.questions[0].question.as_str()
    );
    assert_eq!(
        read["details"]["answers"][0]["notes"],
        format!("one{INJECTED}file").as_str()
    );
}

#[test]
fn history_shows_when_in_the_local_time_its_time_zone_says() {
    // 2026-11-30 07:33:20 UTC.
    let asked = entry("claude", 1_796_024_000_000, ANSWERED);
    let home = home_recording(&asked);
    let shown_in = |tz: &str| history_in(&home, &[], &[("TZ", tz)]);
    let utc = shown_in("UTC0");
    assert!(utc.contains("2026-11-30 07:33"), "{utc}");
    // A POSIX zone nine hours east, and one five and a half hours west.
    let east = shown_in("JST-9");
    assert!(east.contains("2026-11-30 16:33"), "{east}");
    let west = shown_in("XYZ5:30");
    assert!(west.contains("2026-11-30 02:03"), "{west}");
}

#[test]
fn json_for_a_terminal_is_the_same_json_without_raw_c1_controls() {
    use ask_popup::terminal::json_for_terminal;
    let value = serde_json::json!({"a": format!("x{INJECTED}\u{7f}y"), "b": "plain é ✓"});
    let json = serde_json::to_string(&value).unwrap();
    let safe = json_for_terminal(&json);
    assert!(!drives_a_terminal(&safe), "{safe:?}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&safe).unwrap(),
        value
    );
    let plain = serde_json::to_string(&serde_json::json!({"b": "plain é ✓"})).unwrap();
    assert!(matches!(
        json_for_terminal(&plain),
        std::borrow::Cow::Borrowed(_)
    ));
}

#[test]
fn answer_prints_what_it_found_with_every_control_escaped() {
    // A reply whose answer and note hold C1 controls (CSI, OSC, ST) and bidi controls, as the
    // plugin writes them (serde_json leaves them raw), in the record of the asking pane.
    let mut tainted = entry("claude", 1_796_000_000_000, ANSWERED);
    tainted.reply = ANSWERED.replace(
        "one file",
        &format!("one{INJECTED}file")
            .replace('\u{1b}', "\\u001b")
            .replace('\u{7}', "\\u0007"),
    );
    let home = tempfile::tempdir().unwrap();
    let record = ask_popup::history::plugin_cache_dir(
        &home.path().join("cache/zellij"),
        "file:/p/ask-popup.wasm",
    )
    .join(ask_popup_protocol::history::FILE_NAME);
    std::fs::create_dir_all(record.parent().unwrap()).unwrap();
    std::fs::write(&record, format!("{}\n", tainted.to_line())).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ask-popup"))
        .args(["answer", tainted.request_id.as_deref().unwrap()])
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("ZELLIJ_SESSION_NAME", "work")
        .env("ZELLIJ_PANE_ID", "3")
        .output()
        .expect("run ask-popup answer");
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(!drives_a_terminal(&printed), "{printed:?}");
    assert!(
        printed.contains("\\u009b2J\\u009d0;x\\u009c\\u202e"),
        "{printed}"
    );
    // The same JSON value as kept.
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&printed).unwrap(),
        serde_json::from_str::<serde_json::Value>(&tainted.reply).unwrap()
    );
}

#[test]
fn calendar_times_are_the_gregorian_calendars() {
    let w = |ms: u64, offset: i64| {
        let w = when(ms, offset);
        (w.year, w.month, w.day, w.hour, w.minute)
    };
    assert_eq!(w(0, 0), (1970, 1, 1, 0, 0));
    // 2026-12-03 08:12:47 UTC.
    assert_eq!(w(1_796_285_567_000, 0), (2026, 12, 3, 8, 12));
    assert_eq!(w(1_796_285_567_000, 3_600), (2026, 12, 3, 9, 12));
    assert_eq!(w(1_796_285_567_000, -9 * 3_600), (2026, 12, 2, 23, 12));
    // 2024-02-29 (a leap day) 12:00 UTC, and 2000-03-01.
    assert_eq!(w(1_709_208_000_000, 0), (2024, 2, 29, 12, 0));
    assert_eq!(w(951_868_800_000, 0), (2000, 3, 1, 0, 0));
}

mod later {
    use super::entry;
    use ask_popup::later::{
        answer_file, answers_dir, asked_line, file_stem, mark_file, recorded_reply, standing,
        waiting_line, Asked, Here, Standing,
    };
    use ask_popup_protocol::history::Entry;
    use std::cell::Cell;
    use std::ffi::OsStr;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};
    use std::time::{Duration, Instant};

    const ENVELOPE: &str = r#"{"content":[{"type":"text","text":"User declined to answer questions"}],"details":{"answers":[],"cancelled":true,"requestId":"r1"}}"#;
    const OLDER: &str = r#"{"content":[{"type":"text","text":"User has answered your questions: \"Deploy to staging?\"=\"Yes\"."}],"details":{"answers":[],"cancelled":false,"requestId":"r1"}}"#;
    const DEPLOY: &str = r#"{"questions":[{"question":"Deploy to staging?","header":"Deploy","options":["Yes","No"]}]}"#;
    const DELETE: &str = r#"{"questions":[{"question":"Delete the production database?","header":"Delete","options":["Yes","No"]}]}"#;

    #[test]
    fn answers_are_kept_in_the_state_folder_one_file_a_request() {
        let dir = answers_dir(None, Some(OsStr::new("/home/u"))).unwrap();
        assert_eq!(dir, Path::new("/home/u/.local/state/ask-popup/answers"));
        let dir = answers_dir(Some(OsStr::new("/s")), None).unwrap();
        assert_eq!(dir, Path::new("/s/ask-popup/answers"));
        assert_eq!(file_stem("ask-12-ab_C.1"), "ask-12-ab_C.1");
        assert_eq!(file_stem("../x"), "%2E.%2Fx");
        assert_eq!(file_stem("a/b"), "a%2Fb");
        assert_eq!(file_stem("é"), "%C3%A9");
        assert_ne!(file_stem("a%2Fb"), file_stem("a/b"));
        assert_eq!(mark_file(&dir, "a/b"), dir.join("a%2Fb.asked"));
        assert_eq!(answer_file(&dir, "a/b", "t1"), dir.join("a%2Fb@t1.json"));
        // No id's files are another's: `@` is in no stem.
        assert_ne!(answer_file(&dir, "a", "b@c"), answer_file(&dir, "a@b", "c"));
    }

    /// The mark of request `questionnaire` asked under token `token` from pane 3 of `work`.
    fn asked(token: &str, questionnaire: &str) -> Asked {
        let questionnaire = ask_popup_protocol::request::parse(questionnaire).unwrap();
        Asked::new(1, token.to_owned(), Some("work"), Some("3"), &questionnaire)
    }

    /// `standing` with the mark `mark`, its process running or not, the answers `kept` (each
    /// under its token) and the record's reply `recorded`.
    fn stands(
        mark: Option<&Asked>,
        runs: bool,
        kept: &[(&str, &str)],
        recorded: Option<&str>,
    ) -> Standing {
        standing(
            mark,
            |_| runs,
            |asked| {
                kept.iter()
                    .find(|(token, _)| *token == asked.token)
                    .map(|(_, text)| (*text).to_owned())
            },
            || recorded.map(str::to_owned),
        )
    }

    #[test]
    fn a_request_stands_ended_waiting_or_unknown() {
        let mark = asked("t2", DELETE);
        let ended = Standing::Ended(format!("{ENVELOPE}\n"));
        // Its answer kept: ended, even when its process is still seen running (it keeps the
        // answer, then ends).
        assert_eq!(stands(Some(&mark), true, &[("t2", ENVELOPE)], None), ended);
        assert_eq!(stands(Some(&mark), false, &[("t2", ENVELOPE)], None), ended);
        // Waiting, whatever the record holds.
        assert_eq!(
            stands(Some(&mark), true, &[], Some(ENVELOPE)),
            Standing::Waiting
        );
        // Its process gone without an answer: the record, else nothing.
        assert_eq!(stands(Some(&mark), false, &[], Some(ENVELOPE)), ended);
        assert_eq!(stands(Some(&mark), false, &[], None), Standing::Unknown);
        // Nothing asked here: the record alone.
        assert_eq!(
            stands(None, true, &[("t2", ENVELOPE)], Some(ENVELOPE)),
            ended
        );
        assert_eq!(stands(None, false, &[], None), Standing::Unknown);
        assert_eq!(
            stands(Some(&mark), false, &[("t2", "torn {")], None),
            Standing::Unknown
        );
    }

    #[test]
    fn a_request_that_waits_is_not_answered_with_an_earlier_requests_answer_of_its_id() {
        // "Deploy to staging?" was answered Yes under the id (token t1); "Delete the production
        // database?" now waits under it (token t2).
        let mark = asked("t2", DELETE);
        assert_eq!(
            stands(Some(&mark), true, &[("t1", OLDER)], None),
            Standing::Waiting
        );
        // Its process gone without an answer, the earlier answer is still not its own.
        assert_eq!(
            stands(Some(&mark), false, &[("t1", OLDER)], None),
            Standing::Unknown
        );
        // Answered: its own answer.
        assert_eq!(
            stands(Some(&mark), true, &[("t1", OLDER), ("t2", ENVELOPE)], None),
            Standing::Ended(format!("{ENVELOPE}\n"))
        );
    }

    #[test]
    fn a_request_that_ends_between_the_looks_stands_ended() {
        // The waiting process keeps the answer, then ends: a look in between must not find it
        // neither waiting nor answered (the record may not hold it). Whichever look comes
        // first sees the request waiting and not yet answered; every later one sees it
        // answered and its waiting process gone.
        let mark = asked("t2", DELETE);
        let looks = Cell::new(0);
        let ended = || {
            looks.set(looks.get() + 1);
            looks.get() > 1
        };
        let waiting = |_: &Asked| !ended();
        let kept = |_: &Asked| ended().then(|| ENVELOPE.to_owned());
        assert_eq!(
            standing(Some(&mark), waiting, kept, || None),
            Standing::Ended(format!("{ENVELOPE}\n"))
        );
        // And the record is read only when neither tells.
        let read = Cell::new(false);
        let recorded = || {
            read.set(true);
            None
        };
        standing(Some(&mark), |_| true, |_| None, recorded);
        assert!(!read.get());
    }

    /// A record entry of request `id` asking `question`, from pane `pane` of `session`.
    fn recorded(id: &str, question: &str, session: &str, pane: Option<u32>, at: u64) -> Entry {
        let mut entry = entry("claude", at, &format!("reply {at}"));
        entry.request_id = Some(id.to_owned());
        entry.session = Some(session.to_owned());
        entry.pane_id = pane;
        entry.questions[0].question = question.to_owned();
        entry.questions[0].header = question.split(' ').next().unwrap().to_owned();
        entry.questions[0].options[0].label = "Yes".to_owned();
        entry.questions[0].options[1].label = "No".to_owned();
        entry
    }

    #[test]
    fn the_record_answers_for_the_same_request_alone() {
        let deploy = "Deploy to staging?";
        let delete = "Delete the production database?";
        let entries = vec![
            recorded("X", deploy, "work", Some(3), 1_000),
            recorded("X", delete, "work", Some(5), 2_000),
            recorded("X", delete, "other", Some(3), 3_000),
            recorded("Y", delete, "work", Some(3), 4_000),
            recorded("X", deploy, "work", None, 5_000),
        ];
        let reply = |asked: Option<&Asked>, session: Option<&str>, pane: Option<&str>| {
            recorded_reply(entries.clone(), "X", asked, &Here::new(session, pane))
        };
        let reply_at = |at: u64| Some(format!("reply {at}"));
        // Asked with --no-wait from pane 3 of `work`: that pane's request with these
        // questions, wherever `answer` runs.
        assert_eq!(
            reply(Some(&asked("t", DEPLOY)), None, None),
            reply_at(1_000)
        );
        assert_eq!(
            reply(Some(&asked("t", DEPLOY)), Some("work"), Some("5")),
            reply_at(1_000)
        );
        // Not another pane's, another session's, nor the earlier question's of that pane.
        assert_eq!(
            reply(Some(&asked("t", DELETE)), Some("work"), Some("3")),
            None
        );
        // Without a mark: the request asked from where `answer` runs.
        assert_eq!(reply(None, Some("work"), Some("3")), reply_at(1_000));
        assert_eq!(
            reply(None, Some("work"), Some("terminal_5")),
            reply_at(2_000)
        );
        assert_eq!(reply(None, Some("other"), Some("3")), reply_at(3_000));
        assert_eq!(reply(None, Some("work"), None), reply_at(5_000));
        assert_eq!(reply(None, Some("work"), Some("7")), None);
        assert_eq!(reply(None, None, Some("3")), None);
        assert_eq!(reply(None, None, None), None);
    }

    /// `ask-popup` with a fake `zellij` as if in pane `pane` of the session `work`: its `ask`
    /// pipe answers "Deploy to staging?" with Yes at once and leaves any other question
    /// waiting (and writes its id down in `asked`); its `cancel` pipe withdraws.
    struct World {
        dir: tempfile::TempDir,
        _session: std::os::unix::net::UnixListener,
        id: String,
    }

    impl World {
        fn new(name: &str) -> World {
            let dir = tempfile::Builder::new()
                .prefix(&format!("ask-popup-{name}-"))
                .tempdir()
                .unwrap();
            let sockets = dir
                .path()
                .join("sockets")
                .join(ask_popup::zellij::session::CONTRACT_DIR);
            std::fs::create_dir_all(&sockets).unwrap();
            // The session's server, as far as a look at its socket tells.
            let session = std::os::unix::net::UnixListener::bind(sockets.join("work")).unwrap();
            let zellij = dir.path().join("bin/zellij");
            std::fs::create_dir_all(zellij.parent().unwrap()).unwrap();
            std::fs::write(
                &zellij,
                r#"#!/bin/sh
name=; args=
while [ $# -gt 0 ]; do
  case $1 in --name) name=$2; shift 2;; --args) args=$2; shift 2;; *) shift;; esac
done
case $name in
  ask)
    id=$(printf %s "$args" | tr , '\n' | sed -n 's/^id=//p')
    payload=$(cat)
    case $payload in
      *Deploy*) printf '{"content":[{"type":"text","text":"User has answered your questions: \\"Deploy to staging?\\"=\\"Yes\\"."}],"details":{"answers":[],"cancelled":false,"requestId":"%s"}}\n' "$id";;
      *) echo "$id" >>"$HOME/asked"; exec sleep 600;;
    esac;;
  cancel) echo '{"withdrawn":1}';;
esac
"#,
            )
            .unwrap();
            std::fs::set_permissions(&zellij, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .unwrap();
            World {
                dir,
                _session: session,
                id: format!("{name}-{}", std::process::id()),
            }
        }

        fn path(&self) -> &Path {
            self.dir.path()
        }

        fn record(&self) -> PathBuf {
            let record = ask_popup::history::plugin_cache_dir(
                &self.path().join("cache/zellij"),
                "file:/p/ask-popup.wasm",
            )
            .join(ask_popup_protocol::history::FILE_NAME);
            std::fs::create_dir_all(record.parent().unwrap()).unwrap();
            record
        }

        /// `ask-popup ARGS` from pane `pane`.
        fn run(&self, pane: &str, args: &[&str]) -> Output {
            self.command(pane, args).output().expect("run ask-popup")
        }

        /// `ask-popup ARGS` from pane `pane`, to run.
        fn command(&self, pane: &str, args: &[&str]) -> Command {
            let bin = self.path().join("bin");
            let path = format!(
                "{}:{}",
                bin.display(),
                std::env::var("PATH").unwrap_or_default()
            );
            let mut command = Command::new(env!("CARGO_BIN_EXE_ask-popup"));
            command
                .args(args)
                .env_clear()
                .env("PATH", path)
                .env("HOME", self.path())
                .env("XDG_STATE_HOME", self.path().join("state"))
                .env("XDG_CACHE_HOME", self.path().join("cache"))
                .env("ZELLIJ_SOCKET_DIR", self.path().join("sockets"))
                .env("ZELLIJ", "0")
                .env("ZELLIJ_SESSION_NAME", "work")
                .env("ZELLIJ_PANE_ID", pane)
                .env("ASK_POPUP_SERVE", "off")
                .env("ASK_POPUP_TERMINAL_NOTIFY", "off");
            command
        }

        /// The text of `get_user_answer` of this world's id, asked of `ask-popup mcp` run in
        /// pane `pane`, as an MCP client calls it.
        fn mcp_answer(&self, pane: &str) -> String {
            use std::io::{BufRead, Write};
            let mut server = self
                .command(pane, &["mcp"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("run ask-popup mcp");
            let mut stdin = server.stdin.take().unwrap();
            let messages = [
                serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "claude", "version": "1"}}}),
                serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": ask_popup_protocol::tool::ANSWER_NAME,
                        "arguments": {"requestId": self.id}}}),
            ];
            for message in messages {
                writeln!(stdin, "{message}").unwrap();
            }
            stdin.flush().unwrap();
            let stdout = std::io::BufReader::new(server.stdout.take().unwrap());
            let response = stdout
                .lines()
                .map_while(Result::ok)
                .filter_map(|line| serde_json::from_str::<serde_json::Value>(&line).ok())
                .find(|message| message["id"] == 2)
                .expect("get_user_answer's response");
            drop(stdin);
            let _ = server.wait();
            response["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_else(|| panic!("no text in {response}"))
                .to_owned()
        }

        /// `ask-popup ask --no-wait` of `questionnaire` under this world's id, from pane 3.
        fn ask_later(&self, questionnaire: &str) {
            let out = self.run(
                "3",
                &[
                    "ask",
                    "--no-wait",
                    "--id",
                    &self.id,
                    "--agent",
                    "claude",
                    questionnaire,
                ],
            );
            assert!(out.status.success(), "{out:?}");
        }

        /// Waits until a question that waits has been put to the fake `zellij` (its process
        /// is then ready to withdraw it).
        fn wait_until_asked(&self) {
            let until = Instant::now() + Duration::from_secs(30);
            while std::fs::read_to_string(self.path().join("asked"))
                .map_or(true, |ids| !ids.lines().any(|id| id == self.id))
            {
                assert!(Instant::now() < until, "the question never came");
                std::thread::sleep(Duration::from_millis(20));
            }
        }

        /// `ask-popup answer` of this world's id from `pane`: its exit status and what it
        /// printed.
        fn answer(&self, pane: &str) -> (Option<i32>, String) {
            let out = self.run(pane, &["answer", &self.id]);
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            )
        }

        /// The processes left to wait for this world's questions (`ask --keep-answer`).
        fn waiters(&self) -> Vec<i32> {
            let id = format!("--id={}", self.id);
            std::fs::read_dir("/proc")
                .unwrap()
                .flatten()
                .filter_map(|e| {
                    let pid = e.file_name().to_str()?.parse::<i32>().ok()?;
                    let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
                    let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
                    let waits = args.iter().any(|a| a.starts_with(b"--keep-answer"))
                        && args.contains(&id.as_bytes());
                    let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
                    let zombie = stat.rsplit_once(')')?.1.trim_start().starts_with('Z');
                    (waits && !zombie).then_some(pid)
                })
                .collect()
        }

        /// Ends the processes left to wait with `signal`, and waits until they have.
        fn end_waiters(&self, signal: i32) {
            let until = Instant::now() + Duration::from_secs(30);
            loop {
                let waiters = self.waiters();
                if waiters.is_empty() {
                    return;
                }
                assert!(Instant::now() < until, "still waiting: {waiters:?}");
                for pid in waiters {
                    // SAFETY: a signal to a process this test started.
                    unsafe { libc::kill(pid, signal) };
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }

    impl Drop for World {
        fn drop(&mut self) {
            for pid in self.waiters() {
                // SAFETY: a signal to a process this test started.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }

    #[test]
    fn answer_does_not_give_a_waiting_question_the_answer_of_an_earlier_one_of_its_id() {
        let world = World::new("answer-waits");
        world.ask_later(DEPLOY);
        let until = Instant::now() + Duration::from_secs(30);
        let (status, printed) = loop {
            let (status, printed) = world.answer("3");
            if status != Some(ask_popup::later::EXIT_WAITING) {
                break (status, printed);
            }
            assert!(Instant::now() < until, "never answered: {printed}");
            std::thread::sleep(Duration::from_millis(50));
        };
        assert_eq!(status, Some(0), "{printed}");
        assert!(printed.contains("Yes"), "{printed}");
        assert!(world.mcp_answer("3").contains("=\"Yes\""));
        // Asked again under the id, and waiting: for `answer` and for MCP's get_user_answer.
        world.ask_later(DELETE);
        assert_eq!(
            world.answer("3"),
            (
                Some(ask_popup::later::EXIT_WAITING),
                waiting_line(&world.id)
            )
        );
        assert_eq!(
            world.mcp_answer("3"),
            ask_popup_protocol::tool::waiting_text(&world.id)
        );
        // Withdrawn, it is answered as withdrawn, not Yes.
        world.wait_until_asked();
        world.end_waiters(libc::SIGTERM);
        let (status, printed) = world.answer("3");
        assert_eq!(status, Some(1), "{printed}");
        assert!(printed.contains("\"error\":\"aborted\""), "{printed}");
    }

    #[test]
    fn answer_finds_in_the_record_only_the_request_asked_under_the_id_there() {
        let world = World::new("answer-record");
        let id = world.id.as_str();
        let record = world.record();
        let deploy = "Deploy to staging?";
        let delete = "Delete the production database?";
        let line = |entry: &Entry| format!("{}\n", entry.to_line());
        let mut deploy_3 = recorded(id, deploy, "work", Some(3), 1_796_000_000_000);
        deploy_3.reply = OLDER.replace("r1", id);
        let mut delete_5 = recorded(id, delete, "work", Some(5), 1_796_000_001_000);
        delete_5.reply = ENVELOPE.replace("r1", id);
        std::fs::write(&record, line(&deploy_3) + &line(&delete_5)).unwrap();
        // Nothing asked with --no-wait: each pane its own request, no other pane's.
        assert_eq!(
            world.answer("3"),
            (Some(0), format!("{}\n", deploy_3.reply))
        );
        assert_eq!(
            world.answer("5"),
            (Some(0), format!("{}\n", delete_5.reply))
        );
        assert_eq!(world.answer("7").0, Some(5));
        // Pane 3 asks "Delete…?" under the id, and its process dies before an answer: neither
        // its own earlier request nor pane 5's is its answer.
        world.ask_later(DELETE);
        world.end_waiters(libc::SIGKILL);
        assert_eq!(world.answer("3").0, Some(5));
        // Once the record holds it (the popup recorded it; the process died before keeping
        // it), that is its answer.
        let mut delete_3 = recorded(id, delete, "work", Some(3), 1_796_000_002_000);
        delete_3.reply = ENVELOPE
            .replace("r1", id)
            .replace("declined", "declined (3)");
        let mut text = std::fs::read_to_string(&record).unwrap();
        text.push_str(&line(&delete_3));
        std::fs::write(&record, text).unwrap();
        assert_eq!(
            world.answer("3"),
            (Some(0), format!("{}\n", delete_3.reply))
        );
    }

    #[test]
    fn a_question_whose_process_ended_does_not_wait_when_another_process_has_its_pid() {
        // The mark names a pid that runs, but is not the process left to wait for the
        // question (this test's own, as if the pid had been given again).
        let world = World::new("answer-pid");
        let dir = world.path().join("state/ask-popup/answers");
        std::fs::create_dir_all(&dir).unwrap();
        let questionnaire = ask_popup_protocol::request::parse(DELETE).unwrap();
        let mark = Asked::new(
            std::process::id(),
            "t1".to_owned(),
            Some("work"),
            Some("3"),
            &questionnaire,
        );
        std::fs::write(mark_file(&dir, &world.id), mark.to_text()).unwrap();
        assert_eq!(world.answer("3").0, Some(5));
    }

    #[test]
    fn what_is_printed_names_the_request() {
        assert_eq!(asked_line("r1"), "{\"requestId\":\"r1\"}\n");
        assert_eq!(
            waiting_line("r1"),
            "{\"requestId\":\"r1\",\"waiting\":true}\n"
        );
    }
}
