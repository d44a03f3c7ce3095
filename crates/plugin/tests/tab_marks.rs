//! The waiting mark on tab names (`ask_popup_plugin::tab_marks`): put on once a waiting pane of
//! the tab shows its own mark, one however many wait there, taken off after the last, a
//! person's rename kept, tabs named by id while their positions shift, an unnamed tab unnamed
//! again; and through an instance, on and off with the `tab_marks` option.

use ask_popup_plugin::effect::Effect;
use ask_popup_plugin::incoming::{PaneState, TabState, ZellijEvent};
use ask_popup_plugin::instance::Instance;
use ask_popup_plugin::shared_folder::SharedFolder;
use ask_popup_plugin::tab_marks::TabMarks;
use ask_popup_plugin::wire::{WireMessage, WirePayload, WireSource};
use ask_popup_plugin::zellij_command::{Command, PluginIds};
use std::collections::BTreeMap;
use tempfile::TempDir;

fn tab(id: u32, position: usize, name: &str) -> TabState {
    TabState {
        id,
        position,
        name: name.to_owned(),
        ..TabState::default()
    }
}

fn pane(id: u32, tab: usize, title: &str) -> PaneState {
    PaneState {
        id,
        tab,
        title: title.to_owned(),
        ..PaneState::default()
    }
}

/// Zellij's report of one moment: the pane update, then the tab update.
fn report(marks: &mut TabMarks, panes: &[PaneState], tabs: &[TabState]) {
    marks.panes(panes);
    marks.tabs(tabs);
}

/// The renames the marks make with the agents of `waiting` panes waiting.
fn settle(marks: &mut TabMarks, waiting: &[u32]) -> Vec<(u32, String)> {
    let mut fx = Vec::new();
    marks.settle(waiting, &mut fx);
    fx.into_iter()
        .map(|e| match e {
            Effect::RenameTab { tab, name } => (tab, name),
            other => panic!("not a tab's rename: {other:?}"),
        })
        .collect()
}

fn renamed(tab: u32, name: &str) -> Vec<(u32, String)> {
    vec![(tab, name.to_owned())]
}

/// Tab 4, `work`, with the agents of panes 1 and 2; pane 1 asks and shows its mark, and the
/// tab is marked (the rename's echo not come yet).
fn work_marked() -> TabMarks {
    let mut marks = TabMarks::new(true);
    let work = [tab(4, 0, "work")];
    report(&mut marks, &[pane(1, 0, "a"), pane(2, 0, "b")], &work);
    assert_eq!(settle(&mut marks, &[]), []);
    // The pane's mark first: until it shows, the tab is left as it is.
    assert_eq!(settle(&mut marks, &[1]), []);
    report(&mut marks, &[pane(1, 0, "⏳ a"), pane(2, 0, "b")], &work);
    assert_eq!(settle(&mut marks, &[1]), renamed(4, "⏳ work"));
    marks
}

#[test]
fn the_first_wait_in_a_tab_marks_it_once_its_pane_shows_the_mark() {
    let mut marks = work_marked();
    // Updates from before the rename took effect change nothing, nor does the echo.
    report(
        &mut marks,
        &[pane(1, 0, "⏳ a"), pane(2, 0, "b")],
        &[tab(4, 0, "work")],
    );
    assert_eq!(settle(&mut marks, &[1]), []);
    report(
        &mut marks,
        &[pane(1, 0, "⏳ a"), pane(2, 0, "b")],
        &[tab(4, 0, "⏳ work")],
    );
    assert_eq!(settle(&mut marks, &[1]), []);
}

#[test]
fn two_waits_in_one_tab_make_one_mark_taken_off_after_the_last() {
    let mut marks = work_marked();
    assert_eq!(settle(&mut marks, &[1, 2]), []);
    let both = [pane(1, 0, "⏳ a"), pane(2, 0, "⏳ b")];
    report(&mut marks, &both, &[tab(4, 0, "⏳ work")]);
    assert_eq!(settle(&mut marks, &[1, 2]), []);
    // The first answered: the second still waits there.
    report(
        &mut marks,
        &[pane(1, 0, "a"), pane(2, 0, "⏳ b")],
        &[tab(4, 0, "⏳ work")],
    );
    assert_eq!(settle(&mut marks, &[2]), []);
    // The second withdrawn: the name back, at once.
    assert_eq!(settle(&mut marks, &[]), renamed(4, "work"));
    // Late updates still marked are not taken for the name, nor marked again.
    report(
        &mut marks,
        &[pane(1, 0, "a"), pane(2, 0, "⏳ b")],
        &[tab(4, 0, "⏳ work")],
    );
    assert_eq!(settle(&mut marks, &[]), []);
    report(
        &mut marks,
        &[pane(1, 0, "a"), pane(2, 0, "b")],
        &[tab(4, 0, "work")],
    );
    assert_eq!(settle(&mut marks, &[]), []);
    // The next wait marks it again.
    report(
        &mut marks,
        &[pane(1, 0, "a"), pane(2, 0, "⏳ b")],
        &[tab(4, 0, "work")],
    );
    assert_eq!(settle(&mut marks, &[2]), renamed(4, "⏳ work"));
}

#[test]
fn a_wait_whose_pane_closes_takes_the_mark_off() {
    let mut marks = work_marked();
    report(
        &mut marks,
        &[pane(1, 0, "⏳ a"), pane(2, 0, "b")],
        &[tab(4, 0, "⏳ work")],
    );
    // The pane gone from the update: its wait (still told) is in no tab.
    report(&mut marks, &[pane(2, 0, "b")], &[tab(4, 0, "⏳ work")]);
    assert_eq!(settle(&mut marks, &[1]), renamed(4, "work"));
}

#[test]
fn a_tab_the_person_renamed_while_marked_keeps_their_name() {
    let mut marks = work_marked();
    let panes = [pane(1, 0, "⏳ a"), pane(2, 0, "b")];
    report(&mut marks, &panes, &[tab(4, 0, "⏳ work")]);
    // Typed a key at a time: cleared, then the name.
    report(&mut marks, &panes, &[tab(4, 0, "")]);
    assert_eq!(settle(&mut marks, &[1]), []);
    report(&mut marks, &panes, &[tab(4, 0, "mine")]);
    assert_eq!(settle(&mut marks, &[1, 2]), []);
    // The wait ends: their name stays.
    report(
        &mut marks,
        &[pane(1, 0, "a"), pane(2, 0, "b")],
        &[tab(4, 0, "mine")],
    );
    assert_eq!(settle(&mut marks, &[]), []);
    // A new wait marks their name.
    report(
        &mut marks,
        &[pane(1, 0, "a"), pane(2, 0, "⏳ b")],
        &[tab(4, 0, "mine")],
    );
    assert_eq!(settle(&mut marks, &[2]), renamed(4, "⏳ mine"));
}

#[test]
fn a_rename_undone_back_to_the_mark_leaves_the_mark_ours() {
    let mut marks = work_marked();
    let panes = [pane(1, 0, "⏳ a"), pane(2, 0, "b")];
    report(&mut marks, &panes, &[tab(4, 0, "⏳ work")]);
    // Renaming started (the name cleared), then Esc: Zellij puts back the name before it.
    report(&mut marks, &panes, &[tab(4, 0, "")]);
    report(&mut marks, &panes, &[tab(4, 0, "⏳ work")]);
    assert_eq!(settle(&mut marks, &[]), renamed(4, "work"));
}

#[test]
fn a_tab_closed_before_the_marked_one_shifts_positions_but_not_the_tab_renamed() {
    let mut marks = TabMarks::new(true);
    let two = [tab(1, 0, "one"), tab(2, 1, "work")];
    report(&mut marks, &[pane(3, 0, "x"), pane(5, 1, "⏳ a")], &two);
    assert_eq!(settle(&mut marks, &[5]), renamed(2, "⏳ work"));
    report(
        &mut marks,
        &[pane(3, 0, "x"), pane(5, 1, "⏳ a")],
        &[tab(1, 0, "one"), tab(2, 1, "⏳ work")],
    );
    // Tab `one` closes: the pane update (pane 5 now in the tab at 0) comes before its tab
    // update, and is not read against the tabs as they were (tab `one` at 0).
    marks.panes(&[pane(5, 0, "⏳ a")]);
    assert_eq!(settle(&mut marks, &[5]), []);
    marks.tabs(&[tab(2, 0, "⏳ work")]);
    assert_eq!(settle(&mut marks, &[5]), []);
    // Renamed by its id.
    assert_eq!(settle(&mut marks, &[]), renamed(2, "work"));
}

#[test]
fn an_unnamed_tab_gets_its_default_name_back_which_leaves_it_unnamed() {
    let mut marks = TabMarks::new(true);
    // Made without a name: Zellij named it after its id (2), and it is unnamed while it
    // carries that name; an empty name would show empty.
    report(
        &mut marks,
        &[pane(1, 0, "⏳ a"), pane(2, 0, "b")],
        &[tab(2, 0, "Tab #3")],
    );
    assert_eq!(settle(&mut marks, &[1]), renamed(2, "⏳ Tab #3"));
    report(
        &mut marks,
        &[pane(1, 0, "⏳ a"), pane(2, 0, "b")],
        &[tab(2, 0, "⏳ Tab #3")],
    );
    assert_eq!(settle(&mut marks, &[]), renamed(2, "Tab #3"));
}

#[test]
fn a_tab_that_shows_its_only_panes_mark_is_left_alone() {
    let mut marks = TabMarks::new(true);
    // One pane and no name of its own: Zellij shows the pane's explicit title as the tab's.
    report(&mut marks, &[pane(1, 0, "agent")], &[tab(0, 0, "agent")]);
    assert_eq!(settle(&mut marks, &[1]), []);
    report(
        &mut marks,
        &[pane(1, 0, "⏳ agent")],
        &[tab(0, 0, "⏳ agent")],
    );
    assert_eq!(settle(&mut marks, &[1]), []);
    // The wait ends: the tab is not named after its pane.
    assert_eq!(settle(&mut marks, &[]), []);
    report(&mut marks, &[pane(1, 0, "agent")], &[tab(0, 0, "agent")]);
    assert_eq!(settle(&mut marks, &[]), []);
    // A named tab of one pane shows its own name: marked.
    report(&mut marks, &[pane(1, 0, "⏳ agent")], &[tab(0, 0, "work")]);
    assert_eq!(settle(&mut marks, &[1]), renamed(0, "⏳ work"));
}

#[test]
fn a_mark_put_by_another_instance_is_taken_off_and_never_doubled() {
    // An instance that came while the tab was marked (by the leader then).
    let mut marks = TabMarks::new(true);
    report(
        &mut marks,
        &[pane(1, 0, "⏳ a"), pane(2, 0, "b")],
        &[tab(4, 0, "⏳ work")],
    );
    assert_eq!(settle(&mut marks, &[1]), []);
    assert_eq!(settle(&mut marks, &[]), renamed(4, "work"));
}

#[test]
fn with_tab_marks_off_no_tab_is_renamed() {
    let mut marks = TabMarks::new(false);
    report(
        &mut marks,
        &[pane(1, 0, "⏳ a"), pane(2, 0, "b")],
        &[tab(4, 0, "work")],
    );
    assert_eq!(settle(&mut marks, &[1]), []);
}

// Through an instance.

const QUESTION: &str = r#"{"questions":[{"question":"Pick?","header":"H","options":["A","B"]}]}"#;

/// An instance of the first client with these options, granted, past its hello window, on a
/// tab `work` (id 5) with panes 3 and 4.
fn instance(folder: &TempDir, options: &[(&str, &str)]) -> Instance {
    let mut instance = Instance::with_folder(SharedFolder::at(folder.path()));
    let options: BTreeMap<String, String> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let ids = PluginIds {
        plugin_id: 7,
        client_id: 1,
        zellij_pid: 4242,
    };
    instance.load(&options, Some(ids), 1_700_000_000_000);
    instance.event(ZellijEvent::PermissionRequestResult(true), 10);
    zellij_reports(&mut instance, "shell", 20);
    instance.event(ZellijEvent::Timer, 400);
    instance
}

/// Zellij reports the panes (pane 3 titled `title`) and the tab; the commands that follow.
fn zellij_reports(instance: &mut Instance, title: &str, now_ms: u64) -> Vec<Command> {
    let panes = vec![pane(3, 0, title), pane(4, 0, "other")];
    let tabs = vec![TabState {
        active: true,
        display_area_rows: 40,
        display_area_columns: 120,
        ..tab(5, 0, "work")
    }];
    let mut commands = instance
        .event(ZellijEvent::PaneUpdate(panes), now_ms)
        .commands;
    commands.extend(
        instance
            .event(ZellijEvent::TabUpdate(tabs), now_ms)
            .commands,
    );
    commands
}

/// A question from pane 3; the tab's renames that follow once the pane shows its mark.
fn tab_renames_of_a_question(options: &[(&str, &str)]) -> Vec<Command> {
    let folder = TempDir::new().unwrap();
    let mut instance = instance(&folder, options);
    let ask = WireMessage {
        source: WireSource::Cli,
        cli_source_id: Some("p1".to_owned()),
        plugin_source_id: None,
        name: "ask".to_owned(),
        payload: WirePayload::Text(QUESTION.into()),
        args: BTreeMap::from([
            ("id".to_owned(), "r1".to_owned()),
            ("pane_id".to_owned(), "3".to_owned()),
        ]),
    };
    instance.pipe_wire(ask, 500);
    zellij_reports(&mut instance, "⏳ shell", 600)
        .into_iter()
        .filter(|c| matches!(c, Command::RenameTab { .. }))
        .collect()
}

#[test]
fn an_instance_marks_the_tab_of_an_asking_pane_unless_tab_marks_is_false() {
    let mark = Command::RenameTab {
        tab: 5,
        name: "⏳ work".into(),
    };
    assert_eq!(tab_renames_of_a_question(&[]), [mark]);
    assert_eq!(tab_renames_of_a_question(&[("tab_marks", "false")]), []);
    assert_eq!(tab_renames_of_a_question(&[("indicator", "false")]), []);
}
