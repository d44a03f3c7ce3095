//! Scanners for the inline constructs that are read whole at the character that starts them:
//! entities, autolinks, raw HTML tags, a link's `(destination "title")`, and the kind of HTML
//! block a line starts. Each answers where the construct ends, or none when it is not one.

/// The HTML entities read by name, the common ones: each name and what it stands for,
/// separated by spaces. Others stay as written (the 2,000 names of HTML5 would cost more than
/// the rest of the parser).
const NAMED: &str = "amp & lt < gt > quot \" apos ' nbsp \u{a0} copy © reg ® trade ™ hellip … \
    mdash — ndash – laquo « raquo » lsquo ‘ rsquo ’ ldquo “ rdquo ” times × \
    divide ÷ minus − plusmn ± ne ≠ le ≤ ge ≥ asymp ≈ infin ∞ deg ° middot · bull • \
    sect § para ¶ euro € pound £ yen ¥ cent ¢ rarr → larr ← uarr ↑ darr ↓ harr ↔ \
    rArr ⇒ lArr ⇐ hArr ⇔ check ✓ cross ✗ star ☆ starf ★ ensp \u{2002} emsp \u{2003} \
    thinsp \u{2009}";

/// HTML's block-level tag names (CommonMark's sixth kind of HTML block).
const BLOCK_TAGS: &str = "address article aside base basefont blockquote body caption center \
    col colgroup dd details dialog dir div dl dt fieldset figcaption figure footer form frame \
    frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav \
    noframes ol optgroup option p param search section summary table tbody td tfoot th thead \
    title tr track ul";

/// What an entity stands for.
pub(super) enum Entity {
    Named(&'static str),
    Numeric(char),
}

/// The entity at `i` (an `&`), and where it ends.
pub(super) fn entity(s: &str, i: usize) -> Option<(usize, Entity)> {
    let b = s.as_bytes();
    let start = i + 1;
    if b.get(start) == Some(&b'#') {
        let hex = matches!(b.get(start + 1), Some(b'x' | b'X'));
        let from = start + 1 + usize::from(hex);
        let (radix, max) = if hex { (16, 6) } else { (10, 7) };
        let digits = b
            .get(from..)?
            .iter()
            .take_while(|c| (**c as char).is_digit(radix))
            .count();
        let end = from + digits;
        if digits == 0 || digits > max || b.get(end) != Some(&b';') {
            return None;
        }
        let code = b.get(from..end)?.iter().fold(0u32, |n, &d| {
            n * radix + (d as char).to_digit(radix).unwrap_or(0)
        });
        let c = char::from_u32(code)
            .filter(|&c| c != '\0')
            .unwrap_or('\u{fffd}');
        return Some((end + 1, Entity::Numeric(c)));
    }
    let len = b
        .get(start..)?
        .iter()
        .take(33)
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    let end = start + len;
    if len == 0 || b.get(end) != Some(&b';') {
        return None;
    }
    let name = s.get(start..end)?;
    let mut named = NAMED.split(' ');
    while let (Some(n), Some(text)) = (named.next(), named.next()) {
        if n == name {
            return Some((end + 1, Entity::Named(text)));
        }
    }
    None
}

/// The end of an autolink at `i` (a `<`): `<scheme:…>` or `<local@domain>`.
pub(super) fn autolink(s: &str, i: usize) -> Option<usize> {
    let rest = s.as_bytes().get(i + 1..)?;
    let scheme = rest
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
        .count();
    if rest.first()?.is_ascii_alphabetic()
        && (2..=32).contains(&scheme)
        && rest.get(scheme) == Some(&b':')
    {
        let mut j = scheme + 1;
        while let Some(&c) = rest.get(j) {
            match c {
                b'>' => return Some(i + 1 + j + 1),
                b'<' | 0..=b' ' | 0x7f => return None,
                _ => j += 1,
            }
        }
        return None;
    }
    let local = rest
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || b".!#$%&'*+/=?^_`{|}~-".contains(c))
        .count();
    if local == 0 || rest.get(local) != Some(&b'@') {
        return None;
    }
    let mut j = local + 1;
    loop {
        let label = rest
            .get(j..)?
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
            .count();
        let ends_ok = rest.get(j) != Some(&b'-') && rest.get(j + label - 1) != Some(&b'-');
        if label == 0 || label > 63 || !ends_ok {
            return None;
        }
        j += label;
        match rest.get(j) {
            Some(b'.') => j += 1,
            Some(b'>') => return Some(i + 1 + j + 1),
            _ => return None,
        }
    }
}

/// Searches that found nothing, so that the same search from further on is not made again:
/// an unclosed `<!--` or `"` repeated a thousand times costs one scan, not a thousand.
pub(super) struct Memo {
    /// Per searched text, the position from which it is known not to occur.
    none_from: [usize; 7],
}

const COMMENT_END: usize = 0;
const PI_END: usize = 1;
const CDATA_END: usize = 2;
const GREATER: usize = 3;
const DOUBLE_QUOTE: usize = 4;
const SINGLE_QUOTE: usize = 5;
const PAREN: usize = 6;

impl Memo {
    pub(super) fn new() -> Self {
        Memo {
            none_from: [usize::MAX; 7],
        }
    }

    /// Where `what` next occurs in `s` from `from`.
    fn find(&mut self, s: &str, from: usize, what: &str, slot: usize) -> Option<usize> {
        let known = self.none_from.get_mut(slot)?;
        if from >= *known {
            return None;
        }
        let what = what.as_bytes();
        match s
            .as_bytes()
            .get(from..)?
            .windows(what.len())
            .position(|w| w == what)
        {
            Some(k) => Some(from + k),
            None => {
                *known = from;
                None
            }
        }
    }
}

/// The end of the raw HTML at `i` (a `<`): an open or closing tag, a comment, a processing
/// instruction, a declaration or a CDATA section.
pub(super) fn html_tag(s: &str, i: usize, memo: &mut Memo) -> Option<usize> {
    let b = s.as_bytes();
    let rest = s.get(i..)?;
    if let Some(body) = rest.strip_prefix("<!--") {
        // `<!-->` and `<!--->` are (empty) comments too.
        if body.starts_with('>') {
            return Some(i + 5);
        }
        if body.starts_with("->") {
            return Some(i + 6);
        }
        return memo.find(s, i + 4, "-->", COMMENT_END).map(|e| e + 3);
    }
    if rest.starts_with("<?") {
        return memo.find(s, i + 2, "?>", PI_END).map(|e| e + 2);
    }
    if rest.starts_with("<![CDATA[") {
        return memo.find(s, i + 9, "]]>", CDATA_END).map(|e| e + 3);
    }
    if rest.starts_with("<!") {
        b.get(i + 2).filter(|c| c.is_ascii_alphabetic())?;
        return memo.find(s, i + 2, ">", GREATER).map(|e| e + 1);
    }
    if rest.starts_with("</") {
        let j = skip_spaces(b, tag_name(b, i + 2)?);
        return (b.get(j) == Some(&b'>')).then_some(j + 1);
    }
    let mut j = tag_name(b, i + 1)?;
    loop {
        let k = skip_spaces(b, j);
        match b.get(k) {
            Some(b'>') => return Some(k + 1),
            Some(b'/') => return (b.get(k + 1) == Some(&b'>')).then_some(k + 2),
            Some(&c) if k > j && (c.is_ascii_alphabetic() || c == b'_' || c == b':') => {
                let name_end = k
                    + 1
                    + b.get(k + 1..)?
                        .iter()
                        .take_while(|c| c.is_ascii_alphanumeric() || b"_.:-".contains(c))
                        .count();
                let v = skip_spaces(b, name_end);
                if b.get(v) != Some(&b'=') {
                    j = name_end;
                    continue;
                }
                let v = skip_spaces(b, v + 1);
                j = match *b.get(v)? {
                    b'"' => memo.find(s, v + 1, "\"", DOUBLE_QUOTE)? + 1,
                    b'\'' => memo.find(s, v + 1, "'", SINGLE_QUOTE)? + 1,
                    _ => {
                        let unquoted = b
                            .get(v..)?
                            .iter()
                            .take_while(|c| !b" \t\n\r\"'=<>`".contains(c))
                            .count();
                        if unquoted == 0 {
                            return None;
                        }
                        v + unquoted
                    }
                };
            }
            _ => return None,
        }
    }
}

/// The end of a tag name (a letter, then letters, digits and `-`) at `i`.
fn tag_name(b: &[u8], i: usize) -> Option<usize> {
    b.get(i).filter(|c| c.is_ascii_alphabetic())?;
    let len = b
        .get(i..)?
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
        .count();
    Some(i + len)
}

/// Past spaces, tabs and line endings from `i`.
fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The end of a link's `(destination "title")` whose `(` is at `i`: a destination in `<>` or
/// one without spaces and with balanced parentheses, then a title in quotes or parentheses.
pub(super) fn link_tail(s: &str, i: usize, memo: &mut Memo) -> Option<usize> {
    let b = s.as_bytes();
    let mut j = skip_spaces(b, i + 1);
    if b.get(j) == Some(&b'<') {
        j += 1;
        loop {
            match *b.get(j)? {
                b'>' => break,
                b'\n' | b'<' => return None,
                b'\\' => j += 2,
                _ => j += 1,
            }
        }
        j += 1;
    } else {
        let start = j;
        let mut depth = 0usize;
        while let Some(&c) = b.get(j) {
            match c {
                b'\\' if b.get(j + 1).is_some_and(u8::is_ascii_punctuation) => j += 1,
                b'(' => {
                    depth += 1;
                    // Spec implementations may limit nesting; deeper is not a link.
                    if depth > 32 {
                        return None;
                    }
                }
                b')' if depth == 0 => break,
                b')' => depth -= 1,
                0..=b' ' | 0x7f => break,
                _ => {}
            }
            j += 1;
        }
        if depth != 0 || (j == start && b.get(j) != Some(&b')')) {
            return None;
        }
    }
    let k = skip_spaces(b, j);
    if k > j {
        j = k;
        let slot = match b.get(k) {
            Some(b'"') => Some((b'"', DOUBLE_QUOTE)),
            Some(b'\'') => Some((b'\'', SINGLE_QUOTE)),
            Some(b'(') => Some((b')', PAREN)),
            _ => None,
        };
        if let Some((close, slot)) = slot {
            j = skip_spaces(b, title_end(s, k + 1, close, slot, memo)?);
        }
    }
    (b.get(j) == Some(&b')')).then_some(j + 1)
}

/// The end of a link title from `i` up to its closing `close` (backslash escapes skipped; a
/// title in parentheses cannot hold an unescaped `(`).
fn title_end(s: &str, i: usize, close: u8, slot: usize, memo: &mut Memo) -> Option<usize> {
    let known = memo.none_from.get_mut(slot)?;
    if i >= *known {
        return None;
    }
    let b = s.as_bytes();
    let mut j = i;
    while let Some(&c) = b.get(j) {
        if c == close {
            return Some(j + 1);
        }
        match c {
            b'\\' => j += 1,
            b'(' if close == b')' => return None,
            _ => {}
        }
        j += 1;
    }
    *known = i;
    None
}

/// The HTML block `rest` (a line from its first non-space character) starts, if any, and what
/// ends it: a line containing the text given, or a blank line (none). A lone tag on its line
/// starts one only when `lone_tag`.
pub(super) fn html_block(rest: &str, lone_tag: bool) -> Option<Option<&'static str>> {
    let b = rest.as_bytes();
    if rest.starts_with("<!--") {
        return Some(Some("-->"));
    }
    if rest.starts_with("<?") {
        return Some(Some("?>"));
    }
    if rest.starts_with("<![CDATA[") {
        return Some(Some("]]>"));
    }
    if rest.starts_with("<!") && b.get(2).is_some_and(u8::is_ascii_alphabetic) {
        return Some(Some(">"));
    }
    let closing = rest.starts_with("</");
    let from = 1 + usize::from(closing);
    let end = tag_name(b, from)?;
    let name = rest.get(from..end)?;
    let after = rest.get(end..).unwrap_or("");
    let name_ends = after
        .bytes()
        .next()
        .is_none_or(|c| matches!(c, b' ' | b'\t' | b'>'));
    if !closing && name_ends {
        for (tag, end) in [
            ("pre", "</pre>"),
            ("script", "</script>"),
            ("style", "</style>"),
            ("textarea", "</textarea>"),
        ] {
            if name.eq_ignore_ascii_case(tag) {
                return Some(Some(end));
            }
        }
    }
    let block_tag = BLOCK_TAGS
        .split(' ')
        .any(|tag| tag.eq_ignore_ascii_case(name));
    if block_tag && (name_ends || after.starts_with("/>")) {
        return Some(None);
    }
    if lone_tag {
        let end = html_tag(rest, 0, &mut Memo::new())?;
        let alone = rest.get(end..)?.bytes().all(|c| c == b' ' || c == b'\t');
        return alone.then_some(None);
    }
    None
}
