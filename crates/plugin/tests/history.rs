//! The record of every questionnaire: each request that reaches the popup gets one entry, with
//! how it ended, from the instance that replied; the file stays private and bounded.

mod broker_io;

use ask_popup_plugin::broker::{Broker, Config, Effect};
use ask_popup_plugin::dialog::{Input, Key};
use ask_popup_protocol::history::{self, Entry, MAX_BYTES, MAX_ENTRIES};
use broker_io::*;
use serde_json::json;

/// One instance serving alone, its clock started at `EPOCH` ms since the Unix epoch, in
/// session `demo`.
const EPOCH: u64 = 1_796_000_000_000;

fn alone() -> Broker {
    let mut b = instance();
    b.join(1);
    b.set_epoch(EPOCH);
    b.set_session("demo");
    b.pane_titles([(3, "claude".to_owned())]);
    b
}

fn asked(b: &mut Broker, pipe: &str, id: &str) -> Vec<Effect> {
    let payload = json!({"questions": [
        {"question": "Which one?", "header": "Pick", "options": [
            {"label": "A", "description": "the first", "preview": "l1\nl2\nl3\nl4\nl5\nl6"},
            "B"
        ]}
    ]})
    .to_string();
    b.pipe(cli(pipe, Some(&payload), &[("pane_id", "3"), ("id", id)]))
}

/// How a request ends, as a test drives it.
type Ending = fn(&mut Broker) -> Vec<Effect>;

#[test]
fn every_ending_is_recorded_once_with_who_asked_and_the_reply() {
    // (how the request ends, the ending recorded)
    let endings: [(&str, Ending); 7] = [
        ("answered", |b| {
            settle(b);
            b.input(Input::Key(Key::Enter))
        }),
        ("declined", |b| {
            settle(b);
            b.input(Input::Key(Key::Esc))
        }),
        ("chat", |b| {
            settle(b);
            b.input(Input::Key(Key::Char('4')));
            b.input(Input::Key(Key::Enter))
        }),
        ("dismissed", |b| b.before_close()),
        ("aborted", |b| {
            b.pipe(named(
                "c",
                "cancel",
                Some(""),
                &[("pane_id", "3"), ("id", "r")],
            ))
        }),
        // Another questionnaire with the same id replaces it (the same one again is a retry:
        // see `a_retry_of_the_same_questionnaire_is_one_entry`).
        ("superseded", |b| {
            let other = question("Another one?");
            b.pipe(cli("p2", Some(&other), &[("pane_id", "3"), ("id", "r")]))
        }),
        ("dismissed", |b| b.pane_closed(3)),
    ];
    for (ending, end) in endings {
        let mut b = alone();
        let fx = asked(&mut b, "p1", "r");
        assert!(records(&fx).is_empty(), "recorded when it ends: {fx:?}");
        tick(&mut b, 2000);
        let fx = end(&mut b);
        let entries = records(&fx);
        assert_eq!(entries.len(), 1, "{ending}: {fx:?}");
        let entry = &entries[0];
        assert_eq!(entry.ending, ending);
        assert_eq!(entry.agent, "claude", "{ending}");
        assert_eq!(entry.pane_id, Some(3));
        assert_eq!(entry.session.as_deref(), Some("demo"));
        assert_eq!(entry.request_id.as_deref(), Some("r"));
        assert_eq!(entry.asked_ms, EPOCH);
        assert!(entry.ended_ms >= EPOCH + 2000, "{entry:?}");
        assert_eq!(entry.questions[0].header, "Pick");
        assert_eq!(entry.questions[0].options[1].label, "B");
        // A preview is kept to its first lines.
        assert_eq!(
            entry.questions[0].options[0].preview.as_deref(),
            Some("l1\nl2\nl3\nl4\n…")
        );
        // The reply recorded is the one the caller got.
        let reply = replies(&fx)
            .into_iter()
            .find(|(p, _)| p == "p1")
            .map(|(_, r)| r)
            .expect("p1's reply");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&entry.reply).unwrap(),
            reply
        );
    }
}

#[test]
fn a_retry_of_the_same_questionnaire_is_one_entry() {
    // Zellij dropped the caller's first CLI after the question arrived, and the command asked
    // again with the same id: the first arrival is superseded by the retry, which is the same
    // request, so the record keeps one entry, asked when the first arrived.
    let mut b = alone();
    let mut all = asked(&mut b, "p1", "r");
    tick(&mut b, 300);
    all.extend(asked(&mut b, "p2", "r"));
    assert_eq!(replies(&all)[0].1["details"]["error"], "superseded");
    assert!(records(&all).is_empty(), "{all:?}");
    settle(&mut b);
    all.extend(b.input(Input::Key(Key::Enter)));
    let entries = records(&all);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].ending, "answered");
    assert_eq!(entries[0].asked_ms, EPOCH);
    let answer = replies(&all)
        .into_iter()
        .find(|(p, _)| p == "p2")
        .map(|(_, r)| r)
        .expect("p2's reply");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&entries[0].reply).unwrap(),
        answer
    );
}

#[test]
fn a_request_answered_before_it_was_asked_is_recorded_with_its_code() {
    let mut b = alone();
    let fx = b.pipe(cli(
        "bad",
        Some("{\"questions\": []}"),
        &[("agent", "codex"), ("id", "x")],
    ));
    let entries = records(&fx);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].ending, "no_questions");
    assert_eq!(entries[0].agent, "codex");
    // Asked again with the same id after its reply was lost: the same reply, no second entry.
    let mut b = alone();
    asked(&mut b, "p1", "r");
    settle(&mut b);
    assert_eq!(records(&b.input(Input::Key(Key::Enter))).len(), 1);
    let fx = asked(&mut b, "p2", "r");
    assert_eq!(replies(&fx).len(), 1);
    assert!(records(&fx).is_empty(), "{fx:?}");
}

#[test]
fn with_two_clients_only_the_instance_that_replies_records() {
    for answer_in_leader in [true, false] {
        let (mut one, mut two) = two_clients();
        let ask = cli("p1", Some(&question("Q?")), &[("id", "r")]);
        let (a, b) = both(ask, &mut one, &mut two);
        assert!(records(&a).is_empty() && records(&b).is_empty());
        settle(&mut one);
        settle(&mut two);
        let answering = if answer_in_leader { &mut one } else { &mut two };
        let fx = answering.input(Input::Key(Key::Enter));
        let (a, b) = carry(&fx, &mut one, &mut two);
        let all = [fx, a, b].concat();
        assert_eq!(records(&all).len(), 1, "{all:?}");
        // What every instance decides alike is the leader's to reply, and to record.
        let (a, b) = both(cli("bad", Some("nope"), &[]), &mut one, &mut two);
        assert_eq!((records(&a).len(), records(&b).len()), (1, 0));
    }
}

#[test]
fn with_history_off_nothing_is_recorded() {
    let mut b = Broker::new(Config {
        history: false,
        ..Config::default()
    });
    b.join(1);
    asked(&mut b, "p1", "r");
    settle(&mut b);
    let fx = b.input(Input::Key(Key::Enter));
    assert_eq!(replies(&fx).len(), 1);
    assert!(!fx.iter().any(|e| matches!(e, Effect::Record(_))));
}

fn entry(n: usize, size: usize) -> Entry {
    Entry {
        asked_ms: EPOCH + n as u64,
        ended_ms: EPOCH + n as u64,
        session: None,
        agent: format!("agent{n}"),
        pane_id: None,
        request_id: Some(format!("r{n}")),
        questions: Vec::new(),
        ending: "declined".to_owned(),
        reply: "x".repeat(size),
        ..Entry::default()
    }
}

#[test]
fn the_record_is_private_and_stays_bounded_keeping_the_newest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(history::FILE_NAME);
    for n in 0..3000 {
        history::append(&path, &entry(n, 1500).to_line()).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() <= MAX_BYTES + 2000);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let entries = history::read(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(entries.last().unwrap().agent, "agent2999");
    // Oldest first, none missing from the newest back.
    for pair in entries.windows(2) {
        assert_eq!(pair[0].asked_ms + 1, pair[1].asked_ms);
    }
    // Many small entries: when it is cut back, at most MAX_ENTRIES are kept.
    let path = dir.path().join("small.jsonl");
    let mut before = 0;
    let mut cut = None;
    for n in 0..30_000 {
        history::append(&path, &entry(n, 50).to_line()).unwrap();
        let size = std::fs::metadata(&path).unwrap().len();
        if size < before {
            cut = Some(n);
            break;
        }
        before = size;
    }
    let cut = cut.expect("cut back once past MAX_BYTES");
    assert!(before > MAX_BYTES - 300, "{before}");
    let entries = history::read(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(entries.len(), MAX_ENTRIES);
    assert_eq!(entries.last().unwrap().agent, format!("agent{cut}"));
}

#[cfg(unix)]
#[test]
fn the_record_is_cut_back_in_place_so_it_keeps_the_mode_the_command_gave_it() {
    // The plugin cannot give a file a mode: a new file would have the Zellij server's umask's
    // (0644), where the command made the record 0600.
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(history::FILE_NAME);
    std::fs::write(&path, "").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let before = std::fs::metadata(&path).unwrap();
    let (mut n, mut size) = (0, 0);
    loop {
        history::append(&path, &entry(n, 1500).to_line()).unwrap();
        n += 1;
        let now = std::fs::metadata(&path).unwrap().len();
        if now < size {
            break;
        }
        size = now;
    }
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!((after.dev(), after.ino()), (before.dev(), before.ino()));
    assert_eq!(after.mode() & 0o777, 0o600);
    let entries = history::read(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(entries.last().unwrap().agent, format!("agent{}", n - 1));
    for pair in entries.windows(2) {
        assert_eq!(pair[0].asked_ms + 1, pair[1].asked_ms);
    }
}

#[test]
fn a_torn_or_foreign_line_is_skipped() {
    let good = entry(1, 10).to_line();
    let text = format!("{good}\n{{\"askedMs\": 5, \"agen\n\nnot json\n{good}\n");
    assert_eq!(history::read(&text).len(), 2);
}

#[test]
fn a_search_finds_questions_labels_answers_and_notes() {
    let mut b = alone();
    asked(&mut b, "p1", "r");
    settle(&mut b);
    b.input(Input::Key(Key::Char('n')));
    for c in "use Postgres".chars() {
        b.input(Input::Key(Key::Char(c)));
    }
    b.input(Input::Key(Key::Enter));
    let fx = b.input(Input::Key(Key::Enter));
    let entry = records(&fx).remove(0);
    for found in ["which one", "pick", "b", "postgres", "a"] {
        assert!(entry.mentions(found), "{found}: {entry:?}");
    }
    assert!(!entry.mentions("sqlite"));
}

/// The list of questionnaires, as the popup draws it, in plain text.
fn listed(b: &mut Broker) -> String {
    let text = b.screen_text(30, 100, &ask_popup_plugin::view::Theme::default(), &[]);
    // The frame's escape sequences out.
    let mut plain = String::new();
    let mut in_escape = false;
    for c in text.chars() {
        match c {
            '\u{1b}' => in_escape = true,
            'm' | 'H' | 'K' | 'J' if in_escape => in_escape = false,
            _ if in_escape => {}
            _ => plain.push(c),
        }
    }
    plain
}

fn answered_entries() -> Vec<Entry> {
    let mut b = alone();
    asked(&mut b, "p1", "r1");
    settle(&mut b);
    b.input(Input::Key(Key::Down));
    let mut entries = records(&b.input(Input::Key(Key::Enter)));
    asked(&mut b, "p2", "r2");
    settle(&mut b);
    entries.extend(records(&b.input(Input::Key(Key::Esc))));
    entries
}

#[test]
fn with_no_question_waiting_the_bring_back_binding_lists_the_sessions_questionnaires() {
    let mut b = alone();
    // The `show` pipe (the binding's message) asks for the record.
    let fx = b.pipe(named("s", "show", Some("x"), &[]));
    assert!(fx.contains(&Effect::OpenHistory), "{fx:?}");
    // Another session's entry is not listed.
    let mut entries = answered_entries();
    let mut elsewhere = entries[0].clone();
    elsewhere.session = Some("other".to_owned());
    elsewhere.agent = "stranger".to_owned();
    entries.push(elsewhere);
    let fx = b.history_loaded(entries);
    assert!(fx.contains(&Effect::Show), "{fx:?}");
    assert!(b.showing_history());
    let text = listed(&mut b);
    assert!(text.contains("Asked before in this session"), "{text}");
    assert!(
        text.contains("claude (pane 3) · session demo · answered"),
        "{text}"
    );
    assert!(text.contains("Pick: Which one?"), "{text}");
    assert!(text.contains("→ B"), "{text}");
    assert!(text.contains("declined"), "{text}");
    assert!(!text.contains("stranger"), "{text}");
    assert!(text.contains("Esc close"), "{text}");
    // The latest first: the declined one above the answered one.
    assert!(text.find("declined").unwrap() < text.find("answered").unwrap());
    // Keys scroll it or close it; nothing is answered.
    let fx = b.input(Input::Key(Key::Enter));
    assert!(replies(&fx).is_empty());
    let fx = b.input(Input::Key(Key::Esc));
    assert!(fx.contains(&Effect::Hide), "{fx:?}");
    assert!(!b.showing_history());
}

#[test]
fn from_a_question_h_lists_the_questionnaires_and_h_goes_back_with_the_countdown_paused() {
    let mut b = alone();
    let timed = json!({"questions": [{"question": "Q?", "header": "H", "options": ["A", "B"]}],
                       "timeout": 3000})
    .to_string();
    b.pipe(cli("p1", Some(&timed), &[("id", "t")]));
    settle(&mut b);
    let fx = b.input(Input::Key(Key::Char('h')));
    assert!(fx.contains(&Effect::OpenHistory), "{fx:?}");
    b.history_loaded(answered_entries());
    assert!(listed(&mut b).contains("Esc, h back to the questions"));
    // `h` is a key: the user is here, and the question's countdown stopped for good, as any
    // key stops it. It waits, unanswered, however long the list shows.
    for _ in 0..5 {
        let fx = tick(&mut b, 1000);
        assert!(replies(&fx).is_empty(), "{fx:?}");
    }
    let fx = b.input(Input::Key(Key::Char('h')));
    assert!(
        fx.contains(&Effect::FitAnew) && fx.contains(&Effect::Render),
        "{fx:?}"
    );
    assert!(!b.showing_history());
    assert_eq!(b.pending_count(), 1);
}

#[test]
fn a_question_that_comes_while_the_list_shows_takes_its_place() {
    let mut b = alone();
    b.pipe(named("s", "show", Some("x"), &[]));
    b.history_loaded(answered_entries());
    let fx = asked(&mut b, "p3", "r3");
    assert!(fx.contains(&Effect::Show));
    assert!(!b.showing_history());
    assert!(listed(&mut b).contains("Which one?"));
}

#[test]
fn with_history_off_the_bring_back_binding_lists_nothing() {
    let mut b = Broker::new(Config {
        history: false,
        ..Config::default()
    });
    b.join(1);
    let fx = b.pipe(named("s", "show", Some("x"), &[]));
    assert!(!fx.contains(&Effect::OpenHistory), "{fx:?}");
}

#[test]
fn a_huge_question_is_recorded_small() {
    // A megabyte preview on one line, a long question: the entry keeps their beginnings.
    let mut b = alone();
    let payload = json!({"questions": [{
        "question": format!("{}?", "q".repeat(50_000)),
        "header": "Big",
        "options": [
            {"label": "A", "description": "d".repeat(20_000), "preview": "p".repeat(800 * 1024)},
            "B"
        ]
    }]})
    .to_string();
    b.pipe(cli("p1", Some(&payload), &[("id", "big")]));
    settle(&mut b);
    // Picked with its preview: the reply carries the preview twice and is not kept.
    let fx = b.input(Input::Key(Key::Enter));
    let line = fx
        .iter()
        .find_map(|e| match e {
            Effect::Record(line) => Some(line.clone()),
            _ => None,
        })
        .expect("recorded");
    assert!(line.len() < 8 * 1024, "{} bytes", line.len());
    let entry = Entry::from_line(&line).unwrap();
    assert_eq!(entry.ending, "answered");
    assert!(entry.reply.is_empty());
    let preview = entry.questions[0].options[0].preview.as_deref().unwrap();
    assert_eq!(preview.chars().count(), 201);
    assert!(entry.questions[0].question.ends_with('…'));
}

/// A question asked in session `api` and shown here too (the command asks it with
/// `from_session` and `from_pane`), as `claude in api`.
fn asked_from_api(b: &mut Broker, pipe: &str) -> Vec<Effect> {
    b.pipe(cli(
        pipe,
        Some(&question("Which database?")),
        &[
            ("pane_id", ""),
            ("agent", "claude in api"),
            ("id", "r"),
            ("from_session", "api"),
            ("from_pane", "7"),
        ],
    ))
}

#[test]
fn another_sessions_question_answered_here_is_recorded_as_that_sessions() {
    let mut b = alone();
    let fx = asked_from_api(&mut b, "p1");
    // Its own session tells everyone it waits and marks its pane, not this one.
    assert!(broadcasts(&fx, "ask-popup:blocked").is_empty(), "{fx:?}");
    assert!(renames(&fx).is_empty(), "{fx:?}");
    let status = b.status_json();
    assert_eq!(status["pending"][0]["session"], "api");
    assert_eq!(status["pending"][0]["agent"], "claude in api");
    settle(&mut b);
    let fx = b.input(Input::Key(Key::Enter));
    let entries = records(&fx);
    assert_eq!(entries.len(), 1, "{fx:?}");
    assert_eq!(entries[0].ending, "answered");
    assert_eq!(entries[0].session.as_deref(), Some("api"));
    assert_eq!(entries[0].pane_id, Some(7));
    assert!(broadcasts(&fx, "ask-popup:blocked").is_empty(), "{fx:?}");
}

#[test]
fn another_sessions_question_taken_back_here_is_not_recorded_here() {
    for end in ["cancel", "close"] {
        let mut b = alone();
        asked_from_api(&mut b, "p1");
        tick(&mut b, 1000);
        let fx = match end {
            "cancel" => b.pipe(named(
                "c",
                "cancel",
                Some(""),
                &[("pane_id", ""), ("agent", "claude in api"), ("id", "r")],
            )),
            _ => b.before_close(),
        };
        assert_eq!(
            replies(&fx).len(),
            1 + usize::from(end == "cancel"),
            "{fx:?}"
        );
        assert!(records(&fx).is_empty(), "{end}: {fx:?}");
    }
}

#[test]
fn a_question_answered_in_another_session_ends_here_without_an_entry() {
    let mut b = alone();
    asked(&mut b, "p1", "r");
    let fx = b.pipe(named(
        "c",
        "cancel",
        Some(""),
        &[("pane_id", "3"), ("id", "r"), ("answered_elsewhere", "1")],
    ));
    assert!(records(&fx).is_empty(), "{fx:?}");
    // Its pane's wait ends here, where it began.
    let blocked = broadcasts(&fx, "ask-popup:blocked");
    assert_eq!(blocked.len(), 1, "{fx:?}");
    assert_eq!(blocked[0]["active"], false);
    // Without the argument, a withdrawal is an entry.
    let mut b = alone();
    asked(&mut b, "p1", "r");
    let fx = b.pipe(named(
        "c",
        "cancel",
        Some(""),
        &[("pane_id", "3"), ("id", "r")],
    ));
    assert_eq!(records(&fx).len(), 1);
}

#[test]
fn the_go_key_takes_the_client_to_the_asking_session_and_drops_the_copy_here() {
    let go: ask_popup_plugin::dialog::KeyPress = "Alt g".parse().expect("a key");
    let mut b = alone();
    asked_from_api(&mut b, "p1");
    settle(&mut b);
    let fx = b.key(go);
    assert!(
        fx.contains(&Effect::SwitchSession("api".to_owned())),
        "{fx:?}"
    );
    // The copy leaves this session (its caller told `dismissed`), with no entry here.
    let replied = replies(&fx);
    assert_eq!(replied.len(), 1, "{fx:?}");
    assert_eq!(replied[0].1["details"]["error"], "dismissed");
    assert!(records(&fx).is_empty(), "{fx:?}");
    assert_eq!(b.status_json()["pending"], json!([]));
    // On this session's own question the key does nothing of the kind.
    let mut b = alone();
    asked(&mut b, "p1", "r");
    settle(&mut b);
    let fx = b.key(go);
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::SwitchSession(_))),
        "{fx:?}"
    );
    assert!(replies(&fx).is_empty(), "{fx:?}");
}

/// The `Effect::Record` lines of `fx`, as the record's text.
fn record_lines(fx: &[Effect]) -> String {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Record(line) => Some(format!("{line}\n")),
            _ => None,
        })
        .collect()
}

#[test]
fn a_copy_answered_in_two_sessions_at_once_is_one_answer_and_one_answered_elsewhere() {
    // Session `api` has nobody attached: its question shows in `acc1` and `acc2`, and the
    // person (or two people) answer both at once, A in `acc1`, B in `acc2`.
    let mut text = String::new();
    let mut sessions = Vec::new();
    for (session, keys) in [
        ("acc1", vec![Key::Enter]),
        ("acc2", vec![Key::Down, Key::Enter]),
    ] {
        let mut b = alone();
        b.set_session(session);
        asked_from_api(&mut b, "p1");
        settle(&mut b);
        let mut fx = Vec::new();
        for key in keys {
            fx = b.input(Input::Key(key));
        }
        assert_eq!(replies(&fx).len(), 1, "{session}: {fx:?}");
        text.push_str(&record_lines(&fx));
        sessions.push(b);
    }
    assert_eq!(
        history::read(&text)
            .iter()
            .filter(|e| e.ending == "answered")
            .count(),
        2,
        "each popup recorded its own answer"
    );
    // The caller took `acc1`'s: the command takes the question back in `acc2`, saying it was
    // answered elsewhere.
    let cancel = [
        ("pane_id", ""),
        ("agent", "claude in api"),
        ("id", "r"),
        ("from_session", "api"),
        ("answered_elsewhere", "1"),
    ];
    let fx = sessions[1].pipe(named("c", "cancel", Some(""), &cancel));
    let corrections = records(&fx);
    assert_eq!(corrections.len(), 1, "{fx:?}");
    assert_eq!(corrections[0].ending, history::ANSWERED_ELSEWHERE);
    assert_eq!(corrections[0].session.as_deref(), Some("api"));
    assert_eq!(corrections[0].answered_in.as_deref(), Some("acc2"));
    text.push_str(&record_lines(&fx));
    let entries = history::read(&text);
    assert_eq!(entries.len(), 2, "{entries:?}");
    let answered: Vec<&Entry> = entries.iter().filter(|e| e.ending == "answered").collect();
    assert_eq!(answered.len(), 1, "{entries:?}");
    assert_eq!(answered[0].answered_in.as_deref(), Some("acc1"));
    assert_eq!(answered[0].details()["answers"][0]["answer"], "A");
    let other = entries
        .iter()
        .find(|e| e.ending == history::ANSWERED_ELSEWHERE)
        .expect("the other copy marked");
    assert_eq!(other.answered_in.as_deref(), Some("acc2"));
    assert_eq!(other.questions.len(), 1, "its questions kept");
    assert!(other.reply.is_empty() && other.approval.is_none());
    // Asked again, `acc2` no longer hands out the answer its caller did not take.
    let fx = asked_from_api(&mut sessions[1], "p2");
    assert!(
        replies(&fx)
            .iter()
            .all(|(_, reply)| reply["details"]["answers"] == json!([])),
        "{fx:?}"
    );
    // The same cancel again (a retry) writes nothing more; the session whose answer was taken
    // is not sent one.
    let fx = sessions[1].pipe(named("c2", "cancel", Some(""), &cancel));
    assert!(
        records(&fx)
            .iter()
            .all(|e| e.ending != history::ANSWERED_ELSEWHERE),
        "{fx:?}"
    );
}

#[test]
fn an_approval_is_recorded_with_the_command_that_asked_it_and_one_without_says_so() {
    let approval = json!({"approval": true, "questions": [
        {"question": "Allow claude to use Bash: rm -rf build?", "header": "Bash",
         "options": ["Allow once", "Deny"]}
    ]})
    .to_string();
    /// The pipe's arguments, the command recorded, and how `history` shows it.
    type Case<'a> = (&'a [(&'a str, &'a str)], Option<&'a str>, &'a str);
    let cases: [Case; 2] = [
        (
            &[
                ("pane_id", "3"),
                ("id", "a1"),
                ("approval_by", "claude-approval"),
            ],
            Some("claude-approval"),
            "(by claude-approval)",
        ),
        (
            &[("pane_id", "3"), ("id", "a2")],
            None,
            "(not asked by an approval hook)",
        ),
    ];
    for (args, by, shown) in cases {
        let mut b = alone();
        b.pipe(cli("p1", Some(&approval), args));
        settle(&mut b);
        // Up to Allow once, then, after a pause, Enter.
        b.input(Input::Key(Key::Up));
        settle(&mut b);
        let fx = b.input(Input::Key(Key::Enter));
        let entries = records(&fx);
        assert_eq!(entries.len(), 1, "{fx:?}");
        assert_eq!(entries[0].approval.as_deref(), Some("allow_once"));
        assert_eq!(entries[0].approval_by.as_deref(), by);
        assert!(
            entries[0].block("now")[0].ends_with(&format!("allow once {shown} · {}", args[1].1)),
            "{:?}",
            entries[0].block("now")
        );
    }
    // A question that is no approval names no command, whatever its arguments say.
    let mut b = alone();
    let fx = b.pipe(cli(
        "p1",
        Some(&question("Which one?")),
        &[
            ("pane_id", "3"),
            ("id", "q"),
            ("approval_by", "claude-approval"),
        ],
    ));
    assert!(records(&fx).is_empty());
    settle(&mut b);
    let entries = records(&b.input(Input::Key(Key::Enter)));
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].approval, None);
    assert_eq!(entries[0].approval_by, None);
}

#[test]
fn a_copy_taken_back_before_it_was_answered_here_writes_nothing_when_told_it_was_answered_elsewhere(
) {
    // The copy's own caller took it back (the question was answered at home), then the
    // command says it was answered elsewhere: nothing was answered here, nothing to mark.
    let mut b = alone();
    b.set_session("acc");
    asked_from_api(&mut b, "p1");
    tick(&mut b, 1000);
    let who = [("pane_id", ""), ("agent", "claude in api"), ("id", "r")];
    let fx = b.pipe(named("c1", "cancel", Some(""), &who));
    assert!(records(&fx).is_empty(), "{fx:?}");
    let mut told = who.to_vec();
    told.extend([("from_session", "api"), ("answered_elsewhere", "1")]);
    let fx = b.pipe(named("c2", "cancel", Some(""), &told));
    assert!(records(&fx).is_empty(), "{fx:?}");
}

#[test]
fn a_forms_secret_reaches_its_caller_and_never_the_record() {
    let mut b = alone();
    let form = json!({"form": {"server": "bank", "message": "Log in", "schema": {
        "type": "object",
        "properties": {"user": {"type": "string"}, "password": {"type": "string"}},
        "required": ["user", "password"],
    }}})
    .to_string();
    b.pipe(cli("p1", Some(&form), &[("pane_id", "3"), ("id", "f")]));
    settle(&mut b);
    let mut all = Vec::new();
    for c in "ann".chars() {
        all.extend(b.input(Input::Key(Key::Char(c))));
    }
    all.extend(b.input(Input::Key(Key::Enter)));
    for c in "hunter22".chars() {
        all.extend(b.input(Input::Key(Key::Char(c))));
    }
    all.extend(b.input(Input::Key(Key::Enter)));
    all.extend(b.input(Input::Key(Key::Enter)));
    let reply = replies(&all)
        .into_iter()
        .find(|(p, _)| p == "p1")
        .map(|(_, r)| r)
        .expect("p1's reply");
    assert!(reply.to_string().contains("hunter22"), "the caller gets it");
    let entries = records(&all);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].questions[1].header, "password *");
    assert!(
        !entries[0].reply.contains("hunter22"),
        "{}",
        entries[0].reply
    );
    assert!(entries[0].reply.contains("ann"), "{}", entries[0].reply);
    // The form, and what was sent (the secret as •••).
    let recorded = entries[0].form.as_ref().expect("the form recorded");
    assert_eq!(recorded.server, "bank");
    assert_eq!(recorded.message, "Log in");
    assert_eq!(
        recorded.sent,
        Some(json!({"user": "ann", "password": "•••"}))
    );
    let read = Entry::from_line(&entries[0].to_line()).expect("read back");
    assert_eq!(read.form, entries[0].form);
    let block = read.block("today").join("\n");
    assert!(block.contains("form of bank: Log in"), "{block}");
    assert!(
        block.contains(r#"sent: {"user":"ann","password":"•••"}"#),
        "{block}"
    );
    assert!(!block.contains("hunter22"), "{block}");
    // Nor is the reply kept to be repeated to the same caller asking again.
    let again = b.pipe(cli("p2", Some(&form), &[("pane_id", "3"), ("id", "f")]));
    assert!(
        !again.iter().any(|e| format!("{e:?}").contains("hunter22")),
        "{again:?}"
    );
}

#[test]
fn a_declined_form_is_recorded_as_declined_not_as_chat() {
    let mut b = alone();
    let form = json!({"form": {"server": "s", "message": "m", "schema": {
        "type": "object", "properties": {"x": {"type": "string"}}}}})
    .to_string();
    b.pipe(cli("p1", Some(&form), &[("pane_id", "3"), ("id", "d")]));
    settle(&mut b);
    b.input(Input::Key(Key::Down));
    let fx = b.input(Input::Key(Key::Enter));
    let entries = records(&fx);
    assert_eq!(entries.len(), 1, "{fx:?}");
    assert_eq!(entries[0].ending, history::FORM_DECLINED);
    assert_eq!(entries[0].form.as_ref().and_then(|f| f.sent.clone()), None);
    assert!(entries[0].block("now").join("\n").contains("→ (declined)"));
}
