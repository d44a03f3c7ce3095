//! A popup shown under a fullscreen that hides the floating panes (Zellij's web client on a
//! phone keeps its focused pane so, its single-pane view): the instance that leads toggles that
//! pane's fullscreen, to one that shows the popup, and has Zellij report the panes; again a
//! second later while it stays covered and Zellij has reported the tabs since, three times at
//! most, and again once the popup was seen or hidden.

use ask_popup_plugin::incoming::{PaneState, TabState, ZellijEvent};
use ask_popup_plugin::instance::Instance;
use ask_popup_plugin::shared_folder::SharedFolder;
use ask_popup_plugin::wire::{WireMessage, WirePayload, WireSource};
use ask_popup_plugin::zellij_command::{Command, PluginIds};
use std::collections::BTreeMap;
use tempfile::TempDir;

const QUESTION: &str = r#"{"questions":[{"question":"Pick?","header":"H","options":["A","B"]}]}"#;

/// The popup is plugin 7's pane.
const POPUP: u32 = 7;

/// An instance of the first client, granted, past its hello window, on one tab with pane 3.
fn instance(folder: &TempDir) -> Instance {
    let mut instance = Instance::with_folder(SharedFolder::at(folder.path()));
    let ids = PluginIds {
        plugin_id: POPUP,
        client_id: 1,
        zellij_pid: 4242,
    };
    instance.load(&BTreeMap::new(), Some(ids), 1_700_000_000_000);
    instance.event(ZellijEvent::PermissionRequestResult(true), 10);
    instance.event(ZellijEvent::Timer, 400);
    instance
}

fn ask(instance: &mut Instance, now_ms: u64) {
    instance.pipe_wire(
        WireMessage {
            source: WireSource::Cli,
            cli_source_id: Some("p1".to_owned()),
            plugin_source_id: None,
            name: "ask".to_owned(),
            payload: WirePayload::Text(QUESTION.into()),
            args: BTreeMap::from([
                ("id".to_owned(), "r1".to_owned()),
                ("pane_id".to_owned(), "3".to_owned()),
            ]),
        },
        now_ms,
    );
}

/// Pane 3 (fullscreen or not), the popup (shown or hidden by its plugin) and the tab (showing
/// its floating panes or not), as Zellij reports them.
fn states(
    fullscreen: bool,
    popup_shown: bool,
    floating_visible: bool,
) -> (Vec<PaneState>, Vec<TabState>) {
    let panes = vec![
        PaneState {
            id: 3,
            is_fullscreen: fullscreen,
            ..PaneState::default()
        },
        PaneState {
            id: POPUP,
            is_plugin: true,
            is_floating: true,
            is_suppressed: !popup_shown,
            ..PaneState::default()
        },
    ];
    let tabs = vec![TabState {
        active: true,
        floating_visible,
        display_area_rows: 28,
        display_area_columns: 27,
        ..TabState::default()
    }];
    (panes, tabs)
}

/// Zellij reports `states`; the fullscreen toggles that follow.
fn report(
    instance: &mut Instance,
    fullscreen: bool,
    popup_shown: bool,
    floating_visible: bool,
    now_ms: u64,
) -> Vec<Command> {
    let (panes, tabs) = states(fullscreen, popup_shown, floating_visible);
    let mut commands = instance
        .event(ZellijEvent::PaneUpdate(panes), now_ms)
        .commands;
    commands.extend(
        instance
            .event(ZellijEvent::TabUpdate(tabs), now_ms)
            .commands,
    );
    commands
        .into_iter()
        .filter(|c| matches!(c, Command::ToggleFullscreen { .. } | Command::ShowSelf))
        .collect()
}

const UNCOVER: [Command; 1] = [Command::ToggleFullscreen {
    pane: 3,
    plugin: false,
}];

/// A timer; the fullscreen toggles that follow.
fn timer(instance: &mut Instance, now_ms: u64) -> Vec<Command> {
    instance
        .event(ZellijEvent::Timer, now_ms)
        .commands
        .into_iter()
        .filter(|c| matches!(c, Command::ToggleFullscreen { .. } | Command::ShowSelf))
        .collect()
}

#[test]
fn a_question_under_a_phones_single_pane_view_is_uncovered() {
    let folder = TempDir::new().unwrap();
    let mut instance = instance(&folder);
    // Nothing asked: a fullscreen pane is the person's business.
    assert_eq!(report(&mut instance, true, false, false, 450), []);
    ask(&mut instance, 500);
    // Shown, but under the fullscreen: toggled once, though Zellij says so twice more before
    // the toggle takes.
    assert_eq!(report(&mut instance, true, true, false, 600), UNCOVER);
    assert_eq!(report(&mut instance, true, true, false, 700), []);
    assert_eq!(timer(&mut instance, 800), []);
    // Seen: the fullscreen now leaves the floating panes over it.
    assert_eq!(report(&mut instance, true, true, true, 900), []);
    // The phone's view covers it again (its pane focused anew): uncovered again.
    assert_eq!(report(&mut instance, true, true, false, 1000), UNCOVER);
}

#[test]
fn a_popup_still_covered_a_second_later_is_uncovered_again_three_times_at_most() {
    let folder = TempDir::new().unwrap();
    let mut instance = instance(&folder);
    ask(&mut instance, 500);
    assert_eq!(report(&mut instance, true, true, false, 600), UNCOVER);
    // Zellij has said nothing since: its view of a second ago may be out of date, and a
    // toggle on it could make the pane fullscreen again.
    assert_eq!(timer(&mut instance, 1_500), []);
    assert_eq!(timer(&mut instance, 1_600), []);
    // Reported, still covered: toggled again.
    assert_eq!(report(&mut instance, true, true, false, 1_700), UNCOVER);
    // Reported early on, then the timer once the second has passed.
    assert_eq!(report(&mut instance, true, true, false, 2_000), []);
    assert_eq!(timer(&mut instance, 2_600), []);
    assert_eq!(timer(&mut instance, 2_700), UNCOVER);
    // Three in all.
    assert_eq!(report(&mut instance, true, true, false, 3_800), []);
    assert_eq!(timer(&mut instance, 4_000), []);
    assert_eq!(report(&mut instance, true, true, false, 9_000), []);
    // Hidden, then shown again under the fullscreen: three more.
    assert_eq!(report(&mut instance, true, false, false, 9_100), []);
    assert_eq!(report(&mut instance, true, true, false, 9_200), UNCOVER);
}

#[test]
fn a_toggle_goes_with_a_rename_of_the_popup_to_its_name_so_zellij_reports_the_panes() {
    // Zellij's toggle reports nothing, and its phone view moves to the popup only when the
    // panes are next reported: a rename reports them.
    let folder = TempDir::new().unwrap();
    let mut instance = instance(&folder);
    ask(&mut instance, 500);
    let (panes, tabs) = states(true, true, false);
    let named = instance
        .event(ZellijEvent::PaneUpdate(panes), 600)
        .commands
        .into_iter()
        .rev()
        .find_map(|c| match c {
            Command::RenamePluginPane { plugin, title } => Some((plugin, title)),
            _ => None,
        });
    let commands = instance.event(ZellijEvent::TabUpdate(tabs), 600).commands;
    let toggle = commands
        .iter()
        .position(|c| matches!(c, Command::ToggleFullscreen { pane: 3, .. }))
        .expect("a toggle");
    let (plugin, title) = named.expect("the popup named as it showed");
    assert_eq!(
        commands[toggle + 1..],
        [Command::RenamePluginPane { plugin, title }],
        "{commands:?}"
    );
}

#[test]
fn a_popup_seen_or_hidden_or_under_no_fullscreen_is_left_alone() {
    let folder = TempDir::new().unwrap();
    let mut instance = instance(&folder);
    ask(&mut instance, 500);
    // The person hid the floating panes, nothing fullscreen: not this.
    assert_eq!(report(&mut instance, false, true, false, 600), []);
    // A fullscreen with the floating panes over it: the popup shows.
    assert_eq!(report(&mut instance, true, true, true, 700), []);
    // The popup hidden by its plugin.
    assert_eq!(report(&mut instance, true, false, false, 800), []);
}
