//! Untrusted text made safe for a terminal: what an agent or a person wrote loses the control
//! characters and bidi controls that would drive the terminal or reorder what it shows. The
//! popup cleans everything it draws with this, and the command everything it prints.

/// Whether `c` is a bidi control (Unicode's `Bidi_Control` property): the embeddings and
/// overrides (U+202A-U+202E), the isolates (U+2066-U+2069) and the marks (U+200E, U+200F and
/// the Arabic letter mark U+061C). Invisible, each can make a terminal that orders text by
/// direction show it in an order other than the one it is stored in.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Characters that must never reach the terminal: C0 controls other than `\n` (tab is
/// handled separately), DEL, C1 controls and the bidi controls.
fn is_removed(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}') || is_bidi_control(c)
}

/// The byte offset of the first character that sanitising would change. Scans bytes, not
/// chars: every character concerned starts with a byte that ASCII text never contains or is
/// an ASCII control, so ordinary text is checked at memory speed.
fn first_to_sanitize(s: &str, newline_as_space: bool) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0usize;
    while let Some(&b) = bytes.get(i) {
        let hit = match b {
            b'\n' => newline_as_space,
            0x00..=0x1f | 0x7f => true,
            // U+0080..=U+009F
            0xc2 => matches!(bytes.get(i + 1), Some(0x80..=0x9f)),
            // U+061C
            0xd8 => bytes.get(i + 1) == Some(&0x9c),
            // U+200E, U+200F, U+202A..=U+202E and U+2066..=U+2069
            0xe2 => matches!(
                (bytes.get(i + 1), bytes.get(i + 2)),
                (Some(0x80), Some(0x8e | 0x8f | 0xaa..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
            ),
            _ => false,
        };
        if hit {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Appends `s` to `out`, sanitised as by [`sanitize`] (or [`sanitize_line`] when
/// `newline_as_space`). Lets callers that build one string from many pieces skip a copy.
pub fn push_sanitized(out: &mut String, s: &str, newline_as_space: bool) {
    let Some(first) = first_to_sanitize(s, newline_as_space) else {
        out.push_str(s);
        return;
    };
    let (clean, rest) = s.split_at(first);
    out.push_str(clean);
    for c in rest.chars() {
        match c {
            '\t' => out.push_str("    "),
            '\n' if newline_as_space => out.push(' '),
            c if is_removed(c) => {}
            c => out.push(c),
        }
    }
}

fn sanitize_with(s: &str, newline_as_space: bool) -> String {
    if first_to_sanitize(s, newline_as_space).is_none() {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 8);
    push_sanitized(&mut out, s, newline_as_space);
    out
}

/// `s` without control characters (except `\n`) and bidi controls; a tab becomes 4 spaces.
pub fn sanitize(s: &str) -> String {
    sanitize_with(s, false)
}

/// Like [`sanitize`], for one-line contexts: `\n` becomes a space too.
pub fn sanitize_line(s: &str) -> String {
    sanitize_with(s, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bidi_control_is_one_and_nothing_else_is() {
        let controls = [
            '\u{061c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
            '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        ];
        let found: Vec<char> = (0..=0x10ffff)
            .filter_map(char::from_u32)
            .filter(|c| is_bidi_control(*c))
            .collect();
        assert_eq!(found, controls);
        for c in controls {
            assert_eq!(sanitize(&format!("a{c}b")), "ab", "{:04x}", u32::from(c));
        }
        assert_eq!(sanitize("\u{200d}\u{200b}"), "\u{200d}\u{200b}");
    }

    #[test]
    fn the_quick_scan_finds_every_character_sanitising_changes() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let s = format!("ab{c}");
            let changes = c == '\t' || is_removed(c);
            assert_eq!(
                first_to_sanitize(&s, false).is_some(),
                changes,
                "{:04x}",
                u32::from(c)
            );
        }
    }
}
