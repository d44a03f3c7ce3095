//! A long markdown text cut into pieces that are parsed one after the other, so the parser's
//! blocks and inline tokens (tens of bytes per byte of text at worst) are never built for more
//! than `PIECE` bytes at once, and no scan of the parser goes further than a piece.
//!
//! A piece ends at a blank line outside a fenced code block where there is one in its second
//! half, and the next one then starts as a new block would anyway. Otherwise it ends at a line's
//! end (at a character, for a line longer than a piece), and the next one continues it: no
//! blank line between them, and a fenced code block cut there is opened again with its fence.

/// The most bytes parsed at once.
pub(super) const PIECE: usize = 4 * 1024;

#[derive(Debug, PartialEq, Eq)]
pub(super) struct Piece<'a> {
    pub(super) text: &'a str,
    /// The fence of the code block the piece begins inside, to open it again with.
    pub(super) fence: Option<&'a str>,
    /// Whether the piece continues the one before (no blank line between them).
    pub(super) joined: bool,
}

/// `md` in pieces of at most `PIECE` bytes (one piece when it is that short).
pub(super) fn pieces(md: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut piece_fence = None;
    let mut joined = false;
    // The fence line of the code block open at `pos`.
    let mut fence: Option<&str> = None;
    // Where the piece may end: after a blank line outside a code block in its second half;
    // after its last whole line, with the fence open there.
    let mut at_blank = None;
    let mut at_line = None;
    let mut pos = 0;
    while pos < md.len() {
        let end = md[pos..].find('\n').map_or(md.len(), |i| pos + i + 1);
        if end - start > PIECE {
            let (cut, fence_then, join) = match (at_blank, at_line) {
                (Some(blank), _) => (blank, None, false),
                (None, Some((line, open))) => (line, open, true),
                (None, None) => {
                    let mut cut = start + PIECE;
                    while !md.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    (cut, fence, true)
                }
            };
            out.push(Piece {
                text: &md[start..cut],
                fence: piece_fence,
                joined,
            });
            (start, piece_fence, joined) = (cut, fence_then, join);
            (pos, fence, at_blank, at_line) = (cut, fence_then, None, None);
            continue;
        }
        let line = &md[pos..end];
        fence = fence_after(fence, line);
        if fence.is_none() && line.trim().is_empty() && end - start >= PIECE / 2 {
            at_blank = Some(end);
        }
        at_line = Some((end, fence));
        pos = end;
    }
    if start < md.len() || out.is_empty() {
        out.push(Piece {
            text: &md[start..],
            fence: piece_fence,
            joined,
        });
    }
    out
}

/// The fence of the code block open after `line`, given the one open before it (CommonMark's
/// fences: three or more backticks or tildes, indented at most three spaces; closed by a fence
/// of the same character at least as long, with nothing after it).
fn fence_after<'a>(open: Option<&'a str>, line: &'a str) -> Option<&'a str> {
    let line = line.trim_end_matches(['\n', '\r']);
    let body = line.trim_start_matches(' ');
    if line.len() - body.len() > 3 {
        return open;
    }
    let run = |body: &str, c: u8| body.bytes().take_while(|&b| b == c).count();
    let Some(&c) = body.as_bytes().first().filter(|c| matches!(c, b'`' | b'~')) else {
        return open;
    };
    let count = run(body, c);
    match open {
        None if count >= 3 && !(c == b'`' && body[count..].contains('`')) => Some(line),
        None => None,
        Some(opening) => {
            let opening = opening.trim_start_matches(' ');
            let closes = opening.as_bytes().first() == Some(&c)
                && count >= run(opening, c)
                && body[count..].trim().is_empty();
            if closes {
                None
            } else {
                Some(opening)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined_up(pieces: &[Piece]) -> String {
        pieces.iter().map(|p| p.text).collect()
    }

    #[test]
    fn a_short_text_is_one_piece() {
        let p = pieces("a\n\nb");
        assert_eq!(
            p,
            [Piece {
                text: "a\n\nb",
                fence: None,
                joined: false
            }]
        );
        assert_eq!(pieces("").len(), 1);
    }

    #[test]
    fn paragraphs_are_cut_at_blank_lines() {
        let md = "word word word\n\n".repeat(3000);
        let p = pieces(&md);
        assert!(p.len() > 2);
        assert_eq!(joined_up(&p), md);
        for piece in &p {
            assert!(piece.text.len() <= PIECE && piece.text.ends_with("\n\n"));
            assert!(!piece.joined && piece.fence.is_none());
        }
    }

    #[test]
    fn a_code_block_cut_is_opened_again() {
        let md = format!(
            "intro\n\n~~~~rust\n{}~~~~\n\nafter\n",
            "let x = 1;\n\n".repeat(4000)
        );
        let p = pieces(&md);
        assert_eq!(joined_up(&p), md);
        assert!(p.len() > 2);
        assert_eq!(p[1].fence, Some("~~~~rust"));
        assert!(p[1].joined);
        assert!(p.iter().all(|piece| piece.text.len() <= PIECE));
    }

    #[test]
    fn a_line_longer_than_a_piece_is_cut_at_a_character() {
        let md = "設".repeat(PIECE);
        let p = pieces(&md);
        assert_eq!(joined_up(&p), md);
        assert!(p[1..].iter().all(|piece| piece.joined));
    }

    #[test]
    fn fences() {
        assert_eq!(fence_after(None, "```rust\n"), Some("```rust"));
        assert_eq!(fence_after(None, "   ~~~\n"), Some("   ~~~"));
        assert_eq!(fence_after(None, "    ```\n"), None);
        assert_eq!(fence_after(None, "``` a`b\n"), None);
        assert_eq!(fence_after(None, "``\n"), None);
        assert_eq!(fence_after(Some("````"), "```\n"), Some("````"));
        assert_eq!(fence_after(Some("````"), "`````  \n"), None);
        assert_eq!(fence_after(Some("```"), "~~~\n"), Some("```"));
        assert_eq!(fence_after(Some("```"), "``` x\n"), Some("```"));
    }
}
