//! Keys as the terminal sends them through Zellij, and the dialog's key for each: Zellij's key
//! syntax for the hide key, the keys the e2e tests press, the bare control characters a
//! legacy terminal sends for Ctrl+] and its kin.

use ask_popup_plugin::dialog::{key_of, Key, KeyName, KeyPress};

fn press(text: &str) -> KeyPress {
    text.parse().unwrap_or_else(|_| panic!("{text:?} is a key"))
}

/// A character typed as a legacy terminal sends it: no modifier.
fn typed(c: char) -> KeyPress {
    KeyPress::plain(KeyName::Char(c))
}

#[test]
fn keys_are_read_and_written_in_zellijs_syntax() {
    let cases = [
        ("Ctrl ]", "Ctrl ]"),
        ("ctrl ALT enter", "Ctrl Alt ENTER"),
        ("Alt Ctrl x", "Ctrl Alt x"),
        ("Shift Tab", "Shift TAB"),
        ("Super Shift Alt Ctrl PageDown", "Ctrl Alt Shift Super PgDn"),
        ("space", "SPACE"),
        ("F5", "F5"),
        ("f12", "F12"),
        ("Del", "DEL"),
        ("Esc", "ESC"),
        ("Left", "←"),
        ("ü", "ü"),
        ("  Alt   o ", "Alt o"),
    ];
    for (text, written) in cases {
        assert_eq!(press(text).to_string(), written, "{text:?}");
    }
}

#[test]
fn what_zellij_does_not_know_is_not_a_key() {
    for text in [
        "",
        "   ",
        "Hyper q",
        "Ctrl",
        "F13",
        "F0",
        "f01",
        "ab",
        "Ctrl Meta x",
    ] {
        assert!(text.parse::<KeyPress>().is_err(), "{text:?}");
    }
}

#[test]
fn a_capital_is_its_letter_with_shift_as_zellij_compares_keys() {
    assert_eq!(press("A"), press("Shift a"));
    assert_eq!(press("Alt A"), press("Alt Shift a"));
    assert_ne!(press("A"), press("a"));
    assert_ne!(press("Shift 1"), press("!"));
}

#[test]
fn the_dialogs_key_for_each_press() {
    let hide = press("Ctrl ]");
    let cases: [(KeyPress, Key); 22] = [
        (press("Enter"), Key::Enter),
        (press("Alt Enter"), Key::AltEnter),
        (press("Shift Enter"), Key::AltEnter),
        (press("Ctrl Enter"), Key::Other),
        (press("Esc"), Key::Esc),
        (press("Tab"), Key::Tab),
        (press("Shift Tab"), Key::BackTab),
        (press("Ctrl Tab"), Key::Other),
        (press("Up"), Key::Up),
        (press("Down"), Key::Down),
        (press("PageUp"), Key::PageUp),
        (press("PageDown"), Key::PageDown),
        (press("Backspace"), Key::Backspace),
        (press("Delete"), Key::Delete),
        (press("Ctrl u"), Key::ClearLine),
        (press("Ctrl e"), Key::ToggleContext),
        (press("Ctrl c"), Key::Other),
        (press("Alt x"), Key::Other),
        (press("Shift a"), Key::Char('A')),
        (typed('n'), Key::Char('n')),
        (typed(' '), Key::Char(' ')),
        (press("F5"), Key::Other),
    ];
    for (pressed, key) in cases {
        assert_eq!(key_of(pressed, Some(&hide)), key, "{pressed}");
    }
}

#[test]
fn the_hide_key_is_recognised_however_the_terminal_sends_it() {
    let hide = press("Ctrl ]");
    // With the kitty keyboard protocol: Ctrl and the symbol.
    assert_eq!(key_of(press("Ctrl ]"), Some(&hide)), Key::Hide);
    // From a legacy terminal (tmux): the bare control character 0x1d, unnamed.
    assert_eq!(key_of(typed('\u{1d}'), Some(&hide)), Key::Hide);
    // The symbol alone is the symbol.
    assert_eq!(key_of(typed(']'), Some(&hide)), Key::Char(']'));
    // Another control character is another key.
    assert_eq!(key_of(typed('\u{1c}'), Some(&hide)), Key::Other);
    // Any key Zellij's syntax names can hide the popup; with hiding off, none does.
    let alt_h = press("Alt h");
    assert_eq!(key_of(press("Alt h"), Some(&alt_h)), Key::Hide);
    assert_eq!(key_of(press("Alt H"), Some(&alt_h)), Key::Other);
    assert_eq!(key_of(press("Ctrl ]"), None), Key::Other);
    assert_eq!(key_of(press("F5"), Some(&press("F5"))), Key::Hide);
}

#[test]
fn the_configured_hide_key_hides_the_popup_through_the_broker() {
    use ask_popup_plugin::broker::{Broker, Effect};
    use ask_popup_plugin::config::Settings;
    use std::collections::BTreeMap;
    let options = BTreeMap::from([("hide_key".to_owned(), "Alt o".to_owned())]);
    let (settings, errors) = Settings::from_map(&options);
    assert!(errors.is_empty());
    let mut b = Broker::new(settings.broker);
    let question = r#"{"questions":[{"question":"Q?","header":"H","options":["A","B"]}]}"#;
    b.pipe(ask_popup_plugin::broker::PipeIn {
        source: ask_popup_plugin::broker::Source::Cli("p".into()),
        name: "ask".into(),
        payload: Some(question.into()),
        args: BTreeMap::new(),
    });
    b.set_clock(ask_popup_plugin::broker::KEY_GUARD_MS);
    assert!(!b.key(press("Ctrl ]")).contains(&Effect::Hide));
    assert!(b.key(press("Alt o")).contains(&Effect::Hide));
}
