//! End to end: the tab that holds a waiting agent shows it. A named tab reads `⏳ name` while
//! an agent in one of its panes waits, once however many wait there, and its name comes back
//! when the last wait ends; a name the person gives it meanwhile stays.

use crate::agents::{marked, new_pane, submitted, wait_asked, wait_for_pending, wait_for_title};
use crate::agents::{DB, LANG};
use crate::harness::Zellij;
use crate::{assert_reply, ANSWER, AT_ONCE};
use ask_popup_protocol::envelope::{Answer, ErrorCode};
use std::thread;
use std::time::{Duration, Instant};

/// The tabs' names, as Zellij keeps them (`query-tab-names`).
fn tab_names(zellij: &Zellij) -> Vec<String> {
    let until = zellij.until(Duration::from_secs(20));
    loop {
        // A CLI action can exit 0 having printed nothing (see `Zellij::panes`), or now and then
        // never end: asked again.
        let out = zellij.action_within(&["query-tab-names"], Duration::from_secs(5));
        let names: Vec<String> = out
            .iter()
            .filter(|out| out.status.success())
            .flat_map(|out| {
                String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
        if !names.is_empty() {
            return names;
        }
        assert!(Instant::now() < until, "query-tab-names: {out:?}");
        thread::sleep(Duration::from_millis(100));
    }
}

/// Waits until the tabs are named `expected`.
fn wait_for_tab_names(zellij: &Zellij, expected: &[&str]) {
    let until = zellij.until(ANSWER);
    loop {
        let names = tab_names(zellij);
        if names == expected {
            return;
        }
        assert!(
            Instant::now() < until,
            "the tabs never read {expected:?}; they read {names:?}"
        );
        thread::sleep(Duration::from_millis(100));
    }
}

/// The tabs stay named `expected` for a second (a rename on its way would show by then).
fn tab_names_stay(zellij: &Zellij, expected: &[&str]) {
    let until = Instant::now() + Duration::from_secs(1);
    while Instant::now() < until {
        assert_eq!(tab_names(zellij), expected);
        thread::sleep(Duration::from_millis(200));
    }
}

/// Renames the session's one tab as the person does (`rename-tab`), until it reads `name`.
fn rename_tab(zellij: &Zellij, name: &str) {
    let until = zellij.until(ANSWER);
    loop {
        // Harmless to do twice: a CLI action that never ends is given up on and done again.
        let out = zellij.action_within(&["rename-tab", name], Duration::from_secs(5));
        if out.is_some_and(|out| out.status.success()) && tab_names(zellij) == [name] {
            return;
        }
        assert!(
            Instant::now() < until,
            "the tab never took the name {name:?}"
        );
        thread::sleep(Duration::from_millis(100));
    }
}

/// Names the session's one tab `name`, and opens two agents' panes in it; their ids.
fn named_tab_with_two_agents(zellij: &Zellij, name: &str) -> (u32, u32) {
    rename_tab(zellij, name);
    let first = new_pane(zellij, "agent-a", "exec sleep 1000");
    let second = new_pane(zellij, "agent-b", "exec sleep 1000");
    wait_for_title(zellij, first, "agent-a");
    wait_for_title(zellij, second, "agent-b");
    (first, second)
}

#[test]
fn a_named_tab_reads_one_mark_while_either_of_its_agents_waits() {
    let zellij = Zellij::start();
    let (a, b) = named_tab_with_two_agents(&zellij, "work");
    let (pane_a, pane_b) = (a.to_string(), b.to_string());

    // The first agent asks, its pane not the focused one (the second is, the last opened).
    let mut first = zellij.pipe(
        DB,
        &[
            ("agent", "a"),
            ("pane_id", pane_a.as_str()),
            ("id", "tab-a"),
        ],
    );
    wait_asked(&zellij, &mut first, "the first question", |s| {
        s.contains("Which database?")
    });
    wait_for_title(&zellij, a, &marked("agent-a"));
    wait_for_tab_names(&zellij, &[&marked("work")]);

    // The second asks too: still one mark.
    let second = zellij.pipe(
        LANG,
        &[
            ("agent", "b"),
            ("pane_id", pane_b.as_str()),
            ("id", "tab-b"),
        ],
    );
    let mut calls = [first, second];
    wait_for_pending(&zellij, 2, &mut calls);
    let [first, second] = calls;
    wait_for_title(&zellij, b, &marked("agent-b"));
    tab_names_stay(&zellij, &[&marked("work")]);
    let screen = zellij.screen();
    assert!(
        screen.contains("⏳ work") && !screen.contains("⏳ ⏳"),
        "the tab bar:\n{screen}"
    );

    // The first answered: the second still waits in the tab.
    zellij.send_keys(&["Enter"]);
    assert_reply(
        &first.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(0))], &[], Some("tab-a")),
    );
    wait_for_title(&zellij, a, "agent-a");
    tab_names_stay(&zellij, &[&marked("work")]);

    // The second withdrawn: the name back.
    let out = zellij
        .pipe_to(
            "ask-popup",
            "cancel",
            &[("pane_id", pane_b.as_str()), ("id", "tab-b")],
            "now",
        )
        .answered_at_once()
        .wait(AT_ONCE);
    assert!(out.status.success(), "cancel: {out:?}");
    let out = second.wait(ANSWER);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(ErrorCode::Aborted.as_str()),
        "the second caller's reply: {out:?}"
    );
    wait_for_title(&zellij, b, "agent-b");
    wait_for_tab_names(&zellij, &["work"]);
    tab_names_stay(&zellij, &["work"]);
}

#[test]
fn a_tab_the_person_renames_while_it_is_marked_keeps_their_name() {
    let zellij = Zellij::start();
    let (a, _) = named_tab_with_two_agents(&zellij, "work");
    let pane_a = a.to_string();
    let mut call = zellij.pipe(
        DB,
        &[
            ("agent", "a"),
            ("pane_id", pane_a.as_str()),
            ("id", "tab-r"),
        ],
    );
    wait_asked(&zellij, &mut call, "the question", |s| {
        s.contains("Which database?")
    });
    wait_for_tab_names(&zellij, &[&marked("work")]);

    rename_tab(&zellij, "mine");

    zellij.send_keys(&["Enter"]);
    assert_reply(
        &call.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(0))], &[], Some("tab-r")),
    );
    wait_for_title(&zellij, a, "agent-a");
    tab_names_stay(&zellij, &["mine"]);
}
