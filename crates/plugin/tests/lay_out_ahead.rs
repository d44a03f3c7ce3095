//! What a key could show next is laid out while the user reads, a preview per step, so the key
//! draws from the cache; what it draws is what it drew before.

mod broker_io;
mod support;

use ask_popup_plugin::broker::{Broker, Config, Effect, AHEAD_STEP_MS, HELLO_WINDOW_MS};
use ask_popup_plugin::dialog::{Dialog, Input, Key};
use ask_popup_plugin::view::{lay_out_ahead, render, Chrome, ViewCache};
use broker_io::*;
use serde_json::json;
use support::questionnaire;

fn previews() -> serde_json::Value {
    let preview = |name: &str| {
        (1..=30)
            .map(|n| format!("- **{name}** point {n}: `code` and text that wraps at the width"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    json!({"questions": [
        {"question": "Which layout?", "header": "Layout", "options": [
            {"label": "A", "description": "first", "preview": preview("A")},
            {"label": "B", "description": "second", "preview": preview("B")},
            {"label": "C", "description": "no preview"},
            {"label": "D", "description": "fourth", "preview": preview("D")}]},
        {"question": "Which checks?", "header": "Checks", "multiSelect": true, "options": ["lint", "test"]},
        {"question": "Which store?", "header": "Store", "options": [
            {"label": "X", "preview": preview("X")},
            {"label": "Y", "preview": preview("Y")}]},
    ]})
}

const WITH_PREVIEW: usize = 5;

fn chrome() -> Chrome {
    Chrome {
        banner: Some("bench asks".into()),
        hide_key: Some("Ctrl+]".into()),
        settling: false,
    }
}

#[test]
fn laid_out_ahead_every_key_draws_from_the_cache_and_draws_the_same() {
    for (cols, rows) in [(120, 40), (80, 30)] {
        let mut dialog = Dialog::new(questionnaire(previews()));
        let mut cache = ViewCache::new();
        render(&dialog, &mut cache, &chrome(), cols, rows);
        let mut steps = 1;
        while lay_out_ahead(&mut dialog, &mut cache, &chrome(), cols, rows) {
            steps += 1;
            assert!(steps <= WITH_PREVIEW, "a step lays out one preview");
        }
        let laid_out = cache.layouts();
        for key in [
            Key::Down,
            Key::Down,
            Key::Down,
            Key::Up,
            Key::Tab,
            Key::Tab,
            Key::Down,
            Key::Tab,
            Key::Tab,
        ] {
            dialog.handle(Input::Key(key));
            let frame = render(&dialog, &mut cache, &chrome(), cols, rows).to_plain();
            assert_eq!(
                cache.layouts(),
                laid_out,
                "{key:?} at {cols} columns laid out"
            );
            let fresh = render(&dialog, &mut ViewCache::new(), &chrome(), cols, rows).to_plain();
            assert_eq!(frame, fresh, "{key:?} at {cols} columns");
        }
        // Laying out ahead left the dialog as it was (the last keys: back on the first tab).
        assert_eq!(dialog.tab(), 0);
        assert_eq!(dialog.tab_state(0).map(|t| t.focus), Some(2));
    }
}

#[test]
fn the_broker_lays_out_ahead_on_timers_once_a_frame_shows_and_a_key_lays_out_nothing() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("p1", Some(&previews().to_string()), &[]));
    // The request shows: a frame follows, and a timer to lay out ahead once it is drawn.
    let step = Effect::SetTimer(AHEAD_STEP_MS as f64 / 1000.0);
    assert_eq!(b.frame_coming(), vec![step.clone()]);
    assert!(b.frame_coming().is_empty(), "one timer at a time");
    b.render(40, 120);
    let mut steps = 0;
    while tick(&mut b, AHEAD_STEP_MS).contains(&step) {
        steps += 1;
        assert!(steps < WITH_PREVIEW);
    }
    let laid_out = b.layouts();
    settle(&mut b);
    b.timer();
    for key in [
        Key::Down,
        Key::Down,
        Key::Down,
        Key::Tab,
        Key::Tab,
        Key::Down,
    ] {
        b.input(Input::Key(key));
        b.render(40, 120);
        assert_eq!(b.layouts(), laid_out, "{key:?} laid out");
        assert!(b.frame_coming().is_empty(), "all laid out already");
    }
    // Another width: laid out again, ahead.
    b.render(30, 80);
    assert_eq!(b.frame_coming(), vec![step]);
}

/// An instance just granted its permissions, listening for the others' hellos, that shows a
/// question held behind its gate.
fn shown_while_the_hellos_come_in() -> Broker {
    let mut b = instance();
    b.await_permission();
    b.permission(true, 1);
    b.pipe(cli("p1", Some(&previews().to_string()), &[]));
    b
}

#[test]
fn no_timer_while_the_hellos_come_in_and_the_asked_request_keeps_what_its_showing_laid_out() {
    let mut b = shown_while_the_hellos_come_in();
    b.render(40, 120);
    let shown = b.layouts();
    assert!(shown > 0, "shown while the hellos come in");
    assert!(
        b.frame_coming().is_empty(),
        "a request only shown in the hellos' window is not laid out ahead"
    );
    let fx = tick(&mut b, HELLO_WINDOW_MS);
    assert!(fx.contains(&Effect::Render), "{fx:?}");
    b.render(40, 120);
    assert_eq!(
        b.layouts(),
        shown,
        "the asked request took over the layouts"
    );
    assert!(!b.frame_coming().is_empty());
}

#[test]
fn another_timer_in_the_hellos_window_does_not_end_it() {
    let mut b = shown_while_the_hellos_come_in();
    // A timer set before the window (the permission prompt's, laying out ahead) fires in it.
    let fx = tick(&mut b, 100);
    assert!(!fx.contains(&Effect::Render), "{fx:?}");
    assert!(b.frame_coming().is_empty(), "still listening for hellos");
    // The window's own timer ends it (a timer may fire up to 50 ms early).
    let fx = tick(&mut b, HELLO_WINDOW_MS - 100 - 40);
    assert!(fx.contains(&Effect::Render), "{fx:?}");
    assert!(!b.frame_coming().is_empty());
}

#[test]
fn moving_to_another_tab_while_laying_out_ahead_leaves_nothing_out() {
    let (cols, rows) = (120, 40);
    let mut dialog = Dialog::new(questionnaire(previews()));
    let mut cache = ViewCache::new();
    render(&dialog, &mut cache, &chrome(), cols, rows);
    assert!(lay_out_ahead(
        &mut dialog,
        &mut cache,
        &chrome(),
        cols,
        rows
    ));
    // The user moves on before the steps are done: the steps go on in the order they began.
    dialog.handle(Input::Key(Key::Tab));
    render(&dialog, &mut cache, &chrome(), cols, rows);
    while lay_out_ahead(&mut dialog, &mut cache, &chrome(), cols, rows) {}
    let laid_out = cache.layouts();
    for key in [
        Key::Tab,
        Key::Down,
        Key::Tab,
        Key::Down,
        Key::Down,
        Key::Down,
    ] {
        dialog.handle(Input::Key(key));
        render(&dialog, &mut cache, &chrome(), cols, rows);
        assert_eq!(cache.layouts(), laid_out, "{key:?} laid out");
    }
}
