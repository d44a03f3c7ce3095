//! Markdown previews on large and arbitrary input: they finish, fit and stay clean.

use ask_popup_plugin::view::limit;
use ask_popup_plugin::view::markdown::render;
use ask_popup_plugin::view::style::Line;
use proptest::prelude::*;

fn is_forbidden(c: char) -> bool {
    c.is_control()
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

fn assert_clean(lines: &[Line], width: usize) {
    for line in lines {
        assert!(
            line.width() <= width,
            "{:?} wider than {width}",
            line.plain()
        );
        for span in &line.spans {
            assert!(!span.text.chars().any(is_forbidden), "{span:?}");
        }
    }
}

/// About `bytes` of markdown using every construct the renderer knows.
fn big_document(bytes: usize) -> String {
    let section = "\
# Heading with `code` and *emphasis*

A paragraph with **strong text**, _emphasis_, ~~strike~~, a [link](https://example.com) and
an image ![alt text](img.png). It goes on for a while so that wrapping has work to do: lorem
ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt 中文字符 🙂.

- item one with some words
- item two
  - nested item with `inline code`
  - [x] done task
1. first
2. second

> A quote with **bold** and a second line
> > nested quote

```rust
fn main() {
\tprintln!(\"hello\");
}
```

| Column A | Column B | C |
|:---------|:--------:|--:|
| cell | another cell | 3 |
| wide 中文 | x | 42 |

<div>raw html</div>

---

";
    let mut doc = String::with_capacity(bytes + section.len());
    while doc.len() < bytes {
        doc.push_str(section);
    }
    doc
}

#[test]
fn a_mebibyte_document_renders_and_fits() {
    let doc = big_document(1 << 20);
    for width in [1usize, 7, 40, 120] {
        let lines = render(&doc, width);
        // As much as is shown of one text, and the line that says the rest is not.
        assert!(lines.len() > limit::MAX_LINES / 2, "{}", lines.len());
        let last = lines.last().map(Line::plain).unwrap_or_default();
        assert!(last.starts_with('…'), "{last:?}");
        assert_clean(&lines, width);
    }
}

fn markdownish() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        4 => "[a-z]{1,8}",
        3 => Just(" ".to_owned()),
        3 => Just("\n".to_owned()),
        1 => Just("\n\n".to_owned()),
        4 => prop::sample::select(vec![
            "#", "*", "_", "`", "[", "]", "(", ")", ">", "-", "|", "~", "!", "1.", "```",
            "    ", "\t", "<", "</", "&amp;", "\\", "---", "| --- |", "- [ ]", ":",
        ])
        .prop_map(str::to_owned),
        2 => "[一-龥]{1,4}",
        1 => Just("🙂e\u{301}".to_owned()),
        1 => "[\u{0}-\u{1f}\u{7f}-\u{9f}]{1,2}",
        1 => Just("\u{202e}\u{2067}".to_owned()),
        1 => any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(pieces, 0..80).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn any_input_renders_clean_lines_that_fit(md in markdownish(), width in 1usize..150) {
        let lines = render(&md, width);
        for line in &lines {
            prop_assert!(line.width() <= width, "{:?} wider than {}", line.plain(), width);
            for span in &line.spans {
                prop_assert!(!span.text.chars().any(is_forbidden), "{:?}", span);
            }
        }
    }
}

/// Words and the syntax characters of markdown, at random.
fn words_and_syntax() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        5 => "[a-z]{1,8}",
        4 => Just(" ".to_owned()),
        2 => Just("\n".to_owned()),
        1 => Just("\n\n".to_owned()),
        6 => prop::sample::select(vec![
            "#", "*", "_", "~", "`", "[", "]", "(", ")", "!", "<", ">", "&", "|", "-", "+", "\\",
            "    ", "\t", "1.", "```", "---", "| --- |", "- [ ] ", "> ", "- ", "</",
        ])
        .prop_map(str::to_owned),
    ];
    prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
}

/// The words of `md` that must be shown: all but those of a link's destination or title
/// (after `](`, up to the next `)`) and of a code fence's info string (after three backticks
/// or tildes, on their line).
fn shown_words(md: &str) -> Vec<&str> {
    let bytes = md.as_bytes();
    let mut hidden = vec![false; md.len()];
    let mut from = 0;
    while let Some(at) = md[from..].find("](").map(|i| from + i) {
        let end = md[at..].find(')').map_or(md.len(), |i| at + i);
        hidden[at..end].iter_mut().for_each(|h| *h = true);
        from = at + 2;
    }
    let mut line_start = 0;
    for line in md.split('\n') {
        for fence in ["```", "~~~"] {
            if let Some(i) = line.find(fence) {
                let at = line_start + i;
                hidden[at..line_start + line.len()]
                    .iter_mut()
                    .for_each(|h| *h = true);
            }
        }
        line_start += line.len() + 1;
    }
    let mut words = Vec::new();
    let mut start = None;
    for i in 0..=bytes.len() {
        let letter = bytes.get(i).is_some_and(u8::is_ascii_lowercase);
        match (start, letter) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                if !hidden[s..i].iter().any(|&h| h) {
                    words.push(&md[s..i]);
                }
                start = None;
            }
            _ => {}
        }
    }
    words
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_word_is_shown_and_every_line_fits(md in words_and_syntax(), width in 1usize..100) {
        for line in render(&md, width) {
            prop_assert!(line.width() <= width, "{:?} wider than {}", line.plain(), width);
        }
        // Wide enough that nothing is wrapped or cut: each word of the text is in some line.
        let shown: Vec<String> = render(&md, 100_000).iter().map(Line::plain).collect();
        for word in shown_words(&md) {
            prop_assert!(shown.iter().any(|line| line.contains(word)), "{:?} lost: {:?}", word, shown);
        }
    }
}
