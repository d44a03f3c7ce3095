//! One plugin instance between Zellij and the broker (`ask_popup_plugin::instance`): what each
//! event and pipe message Zellij hands it becomes, as the commands `main.rs` sends, and what it
//! keeps in the folder the instances share (a real temporary folder here).

use ask_popup_plugin::broker::PEER_PIPE;
use ask_popup_plugin::incoming::{
    Mode, MouseEvent, PaneState, StyleDeclaration, TabState, ThemeColors, ZellijEvent,
};
use ask_popup_plugin::instance::{Instance, Response};
use ask_popup_plugin::shared_folder::SharedFolder;
use ask_popup_plugin::view::Color;
use ask_popup_plugin::wire::{WireMessage, WirePayload, WireSource};
use ask_popup_plugin::zellij_command::{
    self, Command, EventKind, PluginIds, PluginMessage, PERMISSIONS,
};
use serde_json::Value;
use std::collections::BTreeMap;
use tempfile::TempDir;

const PLUGIN: u32 = 7;
const SERVER: u32 = 4242;
const QUESTION: &str = r#"{"questions":[{"question":"Pick?","header":"H","options":["A","B"]}]}"#;

fn ids(client: u16) -> Option<PluginIds> {
    Some(PluginIds {
        plugin_id: PLUGIN,
        client_id: client,
        zellij_pid: SERVER,
    })
}

fn loaded(folder: &TempDir, client: u16) -> (Instance, Vec<Command>) {
    let mut instance = Instance::with_folder(SharedFolder::at(folder.path()));
    let commands = instance.load(&BTreeMap::new(), ids(client), 1_700_000_000_000);
    (instance, commands)
}

/// An instance of the first client, granted, on a 120 by 40 screen, past its hello window.
fn ready(folder: &TempDir) -> Instance {
    let (mut instance, _) = loaded(folder, 1);
    instance.event(ZellijEvent::PermissionRequestResult(true), 10);
    instance.event(ZellijEvent::TabUpdate(vec![tab()]), 20);
    instance.event(ZellijEvent::Timer, 400);
    instance
}

fn tab() -> TabState {
    TabState {
        position: 0,
        id: 0,
        name: "Tab #1".into(),
        active: true,
        floating_visible: true,
        other_focused_clients: Vec::new(),
        display_area_rows: 40,
        display_area_columns: 120,
    }
}

fn message(source: WireSource, name: &str, payload: WirePayload) -> WireMessage {
    WireMessage {
        source,
        cli_source_id: (source == WireSource::Cli).then(|| "p1".to_owned()),
        plugin_source_id: (source == WireSource::Plugin).then_some(99),
        name: name.to_owned(),
        payload,
        args: BTreeMap::from([("id".to_owned(), "r1".to_owned())]),
    }
}

fn ask(pipe: &str) -> WireMessage {
    WireMessage {
        cli_source_id: Some(pipe.to_owned()),
        ..message(WireSource::Cli, "ask", WirePayload::Text(QUESTION.into()))
    }
}

fn mode() -> Mode {
    let style = StyleDeclaration {
        base: Color::Default,
        background: Color::Default,
        emphasis_0: Color::Default,
        emphasis_1: Color::Default,
        emphasis_2: Color::Default,
        emphasis_3: Color::Default,
    };
    Mode {
        colors: ThemeColors {
            text_unselected: style,
            ribbon_selected: style,
        },
        session_name: Some("s".into()),
    }
}

fn key(name: &str) -> ZellijEvent {
    ZellijEvent::Key(name.parse().expect("a key"))
}

/// Where `wanted` is among `commands` (it must be).
fn position(commands: &[Command], wanted: impl Fn(&Command) -> bool) -> usize {
    commands
        .iter()
        .position(wanted)
        .unwrap_or_else(|| panic!("not among {commands:?}"))
}

/// The JSON written to CLI pipe `pipe`.
fn output_to(commands: &[Command], pipe: &str) -> Option<Value> {
    commands.iter().find_map(|c| match c {
        Command::CliPipeOutput { pipe: p, output } if p == pipe => {
            serde_json::from_str(output).ok()
        }
        _ => None,
    })
}

#[test]
fn the_first_clients_instance_shows_asks_its_permissions_and_subscribes_as_it_loads() {
    let folder = TempDir::new().unwrap();
    let (_, commands) = loaded(&folder, 1);
    assert_eq!(commands, zellij_command::start_now());
    assert_eq!(
        commands.get(..2),
        Some(
            &[
                Command::ShowSelf,
                Command::RequestPermissions(PERMISSIONS.to_vec())
            ][..]
        )
    );
}

#[test]
fn a_later_clients_instance_hears_nothing_but_its_timer_then_starts() {
    let folder = TempDir::new().unwrap();
    let (mut instance, commands) = loaded(&folder, 2);
    assert_eq!(
        commands,
        [
            Command::Subscribe(vec![EventKind::Timer]),
            Command::SetTimeout(zellij_command::LATER_START_S)
        ]
    );
    // What comes before its timer is not heard (it is not subscribed to anything else yet).
    let early = instance.event(ZellijEvent::TabUpdate(vec![tab()]), 5);
    assert_eq!(early, Response::default());
    let started = instance.event(ZellijEvent::Timer, 100);
    assert_eq!(started.commands, zellij_command::start_now());
    assert!(!started.render);
    // Started, it hears its events: a mode update with new colours draws.
    let mode_update = instance.event(ZellijEvent::ModeUpdate(mode()), 110);
    assert_eq!(
        mode_update,
        Response {
            commands: Vec::new(),
            render: true
        }
    );
    // The same colours again (another mode, a focus moved): nothing to draw.
    let again = instance.event(ZellijEvent::ModeUpdate(mode()), 120);
    assert_eq!(again, Response::default());
}

#[test]
fn a_question_that_comes_before_a_later_clients_instance_starts_is_read_when_it_starts() {
    let folder = TempDir::new().unwrap();
    let (mut instance, _) = loaded(&folder, 2);
    // Nothing while the first client's instance draws the question: not even the block,
    // which Zellij refuses before the grant.
    let early = instance.pipe_wire(ask("p1"), 5);
    assert_eq!(early, Response::default());
    let started = instance.event(ZellijEvent::Timer, 100);
    assert!(
        started
            .commands
            .contains(&Command::BlockCliPipe("p1".into())),
        "{:?}",
        started.commands
    );
    // Granted, it shows the question it was sent.
    let granted = instance.event(ZellijEvent::PermissionRequestResult(true), 110);
    assert!(granted.render);
    assert_eq!(instance.broker().pending_count(), 1);
}

#[test]
fn without_its_ids_an_instance_still_starts_and_sends_nothing_addressed_to_its_pane() {
    let folder = TempDir::new().unwrap();
    let mut instance = Instance::with_folder(SharedFolder::at(folder.path()));
    let commands = instance.load(&BTreeMap::new(), None, 0);
    assert_eq!(commands, zellij_command::start_now());
    let granted = instance.event(ZellijEvent::PermissionRequestResult(true), 10);
    // No pane to name, no instances to greet: both need the plugin's id.
    assert!(
        !granted.commands.iter().any(|c| matches!(
            c,
            Command::RenamePluginPane { .. }
                | Command::PlacePluginPane { .. }
                | Command::MessageToPlugin(PluginMessage {
                    destination: Some(_),
                    ..
                })
        )),
        "{granted:?}"
    );
}

#[test]
fn a_granted_instance_names_its_pane_and_greets_the_other_instances_by_its_own_id() {
    let folder = TempDir::new().unwrap();
    let (mut instance, _) = loaded(&folder, 1);
    let granted = instance.event(ZellijEvent::PermissionRequestResult(true), 10);
    assert!(granted.commands.contains(&Command::RenamePluginPane {
        plugin: PLUGIN,
        title: "ask-popup".into()
    }));
    let hello = granted
        .commands
        .iter()
        .find_map(|c| match c {
            Command::MessageToPlugin(m) if m.name == PEER_PIPE => Some(m),
            _ => None,
        })
        .expect("a hello");
    assert_eq!(hello.destination, Some(PLUGIN));
    let said: Value = serde_json::from_str(hello.payload.as_deref().unwrap()).unwrap();
    assert_eq!(said["kind"], "hello");
    assert_eq!(said["from"], 1);
}

#[test]
fn a_question_is_held_placed_then_shown_and_its_title_waits_for_its_first_frame() {
    let folder = TempDir::new().unwrap();
    let mut instance = ready(&folder);
    let asked = instance.pipe_wire(ask("p1"), 500);
    assert!(asked.render);
    let c = &asked.commands;
    let placed = position(c, |c| {
        matches!(c, Command::PlacePluginPane { plugin: PLUGIN, .. })
    });
    let shown = position(c, |c| *c == Command::ShowSelf);
    position(c, |c| *c == Command::BlockCliPipe("p1".into()));
    // Placed before it shows, so its first frame is drawn at its size.
    assert!(placed < shown, "{c:?}");
    // Fitted to the 120 by 40 screen: the configured 80% wide, centred.
    assert!(c.iter().any(|c| matches!(
        c,
        Command::PlacePluginPane { placement, .. }
            if placement.width == Some(ask_popup_plugin::popup::Size::Cells(96))
    )));
    // The pane's name is held back, with a timer to come back for it once the first frame
    // is on its way.
    assert!(c.contains(&Command::SetTimeout(0.04)), "{c:?}");
    assert!(!c
        .iter()
        .any(|c| matches!(c, Command::RenamePluginPane { .. })));
    // Not with an event that comes sooner.
    let sooner = instance.event(ZellijEvent::Timer, 530);
    assert!(
        !sooner
            .commands
            .iter()
            .any(|c| matches!(c, Command::RenamePluginPane { .. })),
        "{:?}",
        sooner.commands
    );
    let next = instance.event(ZellijEvent::Timer, 540);
    assert_eq!(
        next.commands.first(),
        Some(&Command::RenamePluginPane {
            plugin: PLUGIN,
            title: "ask-popup · an agent · 1 of 1".into()
        })
    );
}

/// `folder` as the command leaves it once it made it private: marked, with the record.
fn made_private(folder: &TempDir) {
    use ask_popup_protocol::history::{FILE_NAME, PRIVATE_MARK};
    std::fs::write(folder.path().join(PRIVATE_MARK), "").unwrap();
    std::fs::write(folder.path().join(FILE_NAME), "").unwrap();
}

#[test]
fn an_answer_writes_the_reply_then_releases_the_pipe_hides_and_is_recorded() {
    let folder = TempDir::new().unwrap();
    made_private(&folder);
    let mut instance = ready(&folder);
    instance.pipe_wire(ask("p1"), 500);
    instance.event(ZellijEvent::Timer, 510);
    let answered = instance.event(key("Enter"), 1500);
    let c = &answered.commands;
    let written = position(c, |c| matches!(c, Command::CliPipeOutput { .. }));
    let released = position(c, |c| *c == Command::UnblockCliPipe("p1".into()));
    assert!(written < released, "{c:?}");
    let reply = output_to(c, "p1").expect("a reply");
    assert_eq!(reply["details"]["answers"][0]["answer"], "A");
    assert!(c.contains(&Command::HideSelf), "{c:?}");
    // The popup's pane takes its plain name back once nothing waits.
    assert!(c.contains(&Command::RenamePluginPane {
        plugin: PLUGIN,
        title: "ask-popup".into()
    }));
    assert!(
        c.iter().any(|c| matches!(c, Command::MessageToPlugin(_))),
        "{c:?}"
    );
    let record = SharedFolder::at(folder.path()).recent_history();
    assert_eq!(record.len(), 1, "{record:?}");
}

#[test]
fn the_folder_is_looked_at_after_the_first_questions_frame_not_before() {
    use ask_popup_protocol::history::NO_RECORD;
    let folder = TempDir::new().unwrap();
    let notice = folder.path().join(NO_RECORD);
    let (mut instance, _) = loaded(&folder, 1);
    assert!(!notice.exists(), "looked at as it loaded");
    instance.pipe_wire(ask("p1"), 5);
    let granted = instance.event(ZellijEvent::PermissionRequestResult(true), 10);
    assert!(granted.render, "the question's first frame");
    assert!(!notice.exists(), "looked at before the first frame");
    instance.event(ZellijEvent::Timer, 20);
    assert!(
        notice.exists(),
        "the command finds the folder by the notice"
    );
}

#[test]
fn a_record_waits_for_its_folder_to_be_made_private_and_a_timer_looks_again() {
    use ask_popup_protocol::history::{FILE_NAME, NO_RECORD};
    let folder = TempDir::new().unwrap();
    let mut instance = ready(&folder);
    // Said soon after the grant, so that the command finds the folder before the first
    // entry.
    assert!(folder.path().join(NO_RECORD).exists());
    instance.pipe_wire(ask("p1"), 500);
    instance.event(ZellijEvent::Timer, 510);
    let answered = instance.event(key("Enter"), 1500);
    // Not written where others may read it: it waits, and the instance looks again soon.
    assert!(!folder.path().join(FILE_NAME).exists());
    assert!(answered.commands.contains(&Command::SetTimeout(0.5)));
    // Still not private: looked at again later.
    let looked = instance.event(ZellijEvent::Timer, 2500);
    assert!(looked.commands.contains(&Command::SetTimeout(0.5)));
    assert!(!folder.path().join(FILE_NAME).exists());
    // The command made it private: the next look writes it, and looks no more.
    made_private(&folder);
    let written = instance.event(ZellijEvent::Timer, 3500);
    assert!(!written.commands.contains(&Command::SetTimeout(0.5)));
    let record = SharedFolder::at(folder.path()).recent_history();
    assert_eq!(record.len(), 1, "{record:?}");
    assert_eq!(record[0].ending, "answered");
}

#[test]
fn broadcasts_go_to_every_plugin_unaddressed() {
    let folder = TempDir::new().unwrap();
    let mut instance = ready(&folder);
    let asked = instance.pipe_wire(ask("p1"), 500);
    let broadcast = asked
        .commands
        .iter()
        .find_map(|c| match c {
            Command::MessageToPlugin(m) if m.name == "ask-popup:blocked" => Some(m),
            _ => None,
        })
        .expect("the blocked broadcast");
    assert_eq!(broadcast.destination, None);
    assert!(broadcast.args.is_empty());
}

#[test]
fn the_version_pipe_is_answered_and_released() {
    let folder = TempDir::new().unwrap();
    let mut instance = ready(&folder);
    let msg = message(WireSource::Cli, "version", WirePayload::Absent);
    let answered = instance.pipe_wire(msg, 500);
    let c = &answered.commands;
    let written = position(
        c,
        |c| matches!(c, Command::CliPipeOutput { pipe, output } if pipe == "p1" && output.contains(ask_popup_plugin::broker::VERSION)),
    );
    let released = position(c, |c| *c == Command::UnblockCliPipe("p1".into()));
    assert!(written < released);
}

#[test]
fn a_message_without_its_senders_id_is_dropped_unread() {
    let folder = TempDir::new().unwrap();
    let mut instance = ready(&folder);
    for source in [WireSource::Cli, WireSource::Plugin] {
        let msg = WireMessage {
            cli_source_id: None,
            plugin_source_id: None,
            ..message(source, "ask", WirePayload::Text(QUESTION.into()))
        };
        assert_eq!(instance.pipe_wire(msg, 500), Response::default());
    }
    assert_eq!(instance.broker().pending_count(), 0);
}

#[test]
fn an_unreadable_payload_is_answered_on_a_cli_pipe_and_ignored_from_a_plugin() {
    let folder = TempDir::new().unwrap();
    let mut instance = ready(&folder);
    for (pipe, payload, error) in [
        ("p1", WirePayload::TooLarge(9_000_000), "payload_too_large"),
        ("p2", WirePayload::InvalidUtf8(3), "invalid_payload"),
    ] {
        let from_plugin = message(WireSource::Plugin, "ask", payload.clone());
        assert_eq!(instance.pipe_wire(from_plugin, 500), Response::default());
        let from_cli = WireMessage {
            cli_source_id: Some(pipe.into()),
            ..message(WireSource::Cli, "ask", payload)
        };
        let from_cli = instance.pipe_wire(from_cli, 500);
        let reply = output_to(&from_cli.commands, pipe).expect("a reply");
        assert_eq!(reply["details"]["error"], error, "{reply}");
        assert_eq!(reply["details"]["requestId"], "r1");
        assert!(from_cli
            .commands
            .contains(&Command::UnblockCliPipe(pipe.into())));
    }
}

#[test]
fn the_hide_key_hides_the_popup_and_a_show_brings_it_back_placed() {
    let folder = TempDir::new().unwrap();
    let mut instance = ready(&folder);
    instance.pipe_wire(ask("p1"), 500);
    let hidden = instance.event(key("Ctrl ]"), 1500);
    assert!(hidden.commands.contains(&Command::HideSelf), "{hidden:?}");
    let show = message(WireSource::Cli, "show", WirePayload::Absent);
    let shown = instance.pipe_wire(show, 1600);
    assert!(shown.commands.contains(&Command::ShowSelf), "{shown:?}");
}

#[test]
fn a_pane_update_listing_the_popup_on_screen_and_a_click_and_wheel_reach_the_dialog() {
    let folder = TempDir::new().unwrap();
    let mut instance = ready(&folder);
    instance.pipe_wire(ask("p1"), 500);
    let popup = PaneState {
        id: PLUGIN,
        is_plugin: true,
        title: "ask-popup".into(),
        tab: 0,
        is_floating: true,
        is_suppressed: false,
        is_fullscreen: false,
    };
    let terminal = PaneState {
        id: 3,
        is_plugin: false,
        title: "shell".into(),
        ..PaneState::default()
    };
    instance.event(ZellijEvent::PaneUpdate(vec![popup, terminal]), 600);
    let wheel = instance.event(ZellijEvent::Mouse(MouseEvent::ScrollDown(1_000)), 1600);
    // Nothing for Zellij; the wheel is the dialog's.
    assert!(wheel
        .commands
        .iter()
        .all(|c| matches!(c, Command::SetTimeout(_))));
    let other = instance.event(ZellijEvent::Mouse(MouseEvent::Other), 1700);
    assert!(!other.render);
}

#[test]
fn closing_keeps_the_replies_for_the_next_instance_which_answers_a_caller_asking_again() {
    let folder = TempDir::new().unwrap();
    let mut first = ready(&folder);
    first.pipe_wire(
        message(WireSource::Cli, "ask", WirePayload::Text(QUESTION.into())),
        500,
    );
    let closed = first.event(ZellijEvent::BeforeClose, 900);
    let reply = output_to(&closed.commands, "p1").expect("a reply on close");
    assert_eq!(reply["details"]["error"], "dismissed", "{reply}");
    let kept = SharedFolder::at(folder.path()).kept_path(SERVER);
    assert!(kept.exists(), "nothing kept at {}", kept.display());

    // The next instance of the session reads it as it loads; the caller asking again with the
    // same id gets the same reply, not the question again.
    let mut next = ready(&folder);
    let again = WireMessage {
        cli_source_id: Some("p2".into()),
        ..message(WireSource::Cli, "ask", WirePayload::Text(QUESTION.into()))
    };
    let answered = next.pipe_wire(again, 500);
    assert_eq!(output_to(&answered.commands, "p2"), Some(reply));
    assert!(!answered.commands.contains(&Command::ShowSelf));
    // Read back by the instance that leads, the file (it holds answers) is gone.
    assert!(!kept.exists());
}
