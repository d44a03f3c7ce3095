//! Invariants of the terminal text utilities on arbitrary input.

use ask_popup_plugin::view::text::{sanitize, sanitize_line, truncate, truncate_ellipsis, width};
use ask_popup_plugin::view::wrap::wrap;
use proptest::prelude::*;

fn is_forbidden(c: char) -> bool {
    (c.is_control() && c != '\n')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// Text mixing ASCII, spaces, CJK, emoji, combining marks, controls and bidi controls.
fn messy_text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        4 => "[a-z]{1,12}",
        3 => Just(" ".to_owned()),
        1 => Just("   ".to_owned()),
        1 => Just("\n".to_owned()),
        1 => Just("\t".to_owned()),
        2 => "[一-龥]{1,6}",
        1 => Just("🙂🎉".to_owned()),
        1 => Just("e\u{301}\u{308}".to_owned()),
        1 => Just("\u{200d}".to_owned()),
        1 => "[\u{0}-\u{1f}\u{7f}-\u{9f}]{1,3}",
        1 => Just("\u{1b}[31m".to_owned()),
        1 => Just("\u{202e}\u{2066}\u{2069}".to_owned()),
        1 => any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(pieces, 0..40).prop_map(|v| v.concat())
}

fn non_space(s: &str) -> String {
    s.chars().filter(|c| *c != ' ' && *c != '\n').collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn sanitize_leaves_no_forbidden_chars(s in messy_text()) {
        let clean = sanitize(&s);
        prop_assert!(!clean.chars().any(|c| is_forbidden(c) || c == '\t'), "{clean:?}");
        let line = sanitize_line(&s);
        prop_assert!(!line.chars().any(|c| is_forbidden(c) || c == '\n' || c == '\t'));
        prop_assert_eq!(sanitize(&clean), clean.clone());
    }

    #[test]
    fn wrapped_lines_fit_and_keep_every_character(s in messy_text(), w in 1usize..200) {
        let clean = sanitize(&s);
        let lines = wrap(&clean, w);
        prop_assert!(!lines.is_empty());
        for line in &lines {
            prop_assert!(width(line) <= w, "{line:?} wider than {w}");
            prop_assert!(!line.chars().any(|c| is_forbidden(c) || c == '\n'), "{line:?}");
        }
        if w >= 2 {
            let joined: String = lines.concat();
            prop_assert_eq!(non_space(&joined), non_space(&clean));
        }
    }

    #[test]
    fn wrap_never_panics_on_raw_input(s in messy_text(), w in 0usize..20) {
        let lines = wrap(&s, w);
        prop_assert_eq!(lines.is_empty(), w == 0);
        for line in &lines {
            prop_assert!(width(line) <= w);
        }
    }

    #[test]
    fn truncation_fits(s in messy_text(), w in 0usize..60) {
        let clean = sanitize_line(&s);
        let t = truncate(&clean, w);
        prop_assert!(width(t) <= w);
        prop_assert!(clean.starts_with(t));
        let e = truncate_ellipsis(&clean, w);
        prop_assert!(width(&e) <= w);
    }
}
