//! Markdown layout cases, one behaviour each.

use super::renderer::{marker_style, quote_style};
use super::*;
use crate::view::style::{Role, Style};

fn plain(lines: &[Line]) -> Vec<String> {
    lines.iter().map(Line::plain).collect()
}

fn styles_of<'a>(lines: &'a [Line], text: &str) -> Vec<&'a Style> {
    lines
        .iter()
        .flat_map(|l| &l.spans)
        .filter(|s| s.text.contains(text))
        .map(|s| &s.style)
        .collect()
}

fn style_of(lines: &[Line], text: &str) -> Style {
    match styles_of(lines, text).first() {
        Some(style) => **style,
        None => panic!("no span with {text:?} in {:?}", plain(lines)),
    }
}

#[test]
fn headings_are_bold_without_hashes_and_followed_by_a_blank_line() {
    let lines = render("# Title\n## Sub\ntext", 40);
    assert_eq!(plain(&lines), ["Title", "", "Sub", "", "text"]);
    assert_eq!(
        style_of(&lines, "Title"),
        Style::new(Role::Heading).bold().underline()
    );
    assert_eq!(style_of(&lines, "Sub"), Style::new(Role::Heading).bold());
}

#[test]
fn last_heading_has_no_trailing_blank_line() {
    assert_eq!(plain(&render("text\n\n# End", 40)), ["text", "", "End"]);
}

#[test]
fn paragraphs_wrap_and_are_separated_by_one_blank_line() {
    let lines = render("one two three four\n\nfive", 9);
    assert_eq!(plain(&lines), ["one two", "three", "four", "", "five"]);
}

#[test]
fn inline_styles_survive_wrapping() {
    let lines = render("plain *emph word* **strong** ~~gone~~ `code`", 12);
    assert_eq!(plain(&lines), ["plain emph", "word strong", "gone code"]);
    assert_eq!(style_of(&lines, "emph"), Style::new(Role::Text).italic());
    assert_eq!(style_of(&lines, "word"), Style::new(Role::Text).italic());
    assert_eq!(style_of(&lines, "strong"), Style::new(Role::Text).bold());
    assert_eq!(style_of(&lines, "gone"), Style::new(Role::Dim));
    assert_eq!(style_of(&lines, "code"), Style::new(Role::Code));
}

#[test]
fn links_show_their_text_only_and_images_their_alt_text() {
    let lines = render(
        "see [the docs](https://example.com) and ![a cat](cat.png)",
        80,
    );
    assert_eq!(plain(&lines), ["see the docs and [image: a cat]"]);
    assert_eq!(
        style_of(&lines, "the docs"),
        Style::new(Role::Link).underline()
    );
    assert_eq!(style_of(&lines, "a cat"), Style::new(Role::Dim));
}

#[test]
fn soft_breaks_are_spaces_and_hard_breaks_new_lines() {
    assert_eq!(plain(&render("a\nb", 20)), ["a b"]);
    assert_eq!(plain(&render("a  \nb\\\nc", 20)), ["a", "b", "c"]);
}

#[test]
fn bullet_lists_nest_with_hollow_bullets() {
    let md = "- one\n- two\n  - inner\n  - more\n- three";
    assert_eq!(
        plain(&render(md, 40)),
        ["• one", "• two", "  ◦ inner", "  ◦ more", "• three"]
    );
}

#[test]
fn list_continuation_lines_align_with_the_text() {
    let lines = render("- alpha beta gamma\n\n10. delta epsilon", 10);
    assert_eq!(
        plain(&lines),
        [
            "• alpha",
            "  beta",
            "  gamma",
            "",
            "10. delta",
            "    epsilo",
            "    n"
        ]
    );
    assert_eq!(style_of(&lines, "•"), marker_style());
}

#[test]
fn ordered_lists_honour_their_start_number() {
    assert_eq!(plain(&render("3. c\n4. d", 20)), ["3. c", "4. d"]);
}

#[test]
fn loose_lists_keep_blank_lines_between_items() {
    assert_eq!(plain(&render("- a\n\n- b", 20)), ["• a", "", "• b"]);
}

#[test]
fn task_list_markers_are_shown() {
    assert_eq!(
        plain(&render("- [ ] todo\n- [x] done", 20)),
        ["• [ ] todo", "• [x] done"]
    );
}

#[test]
fn empty_list_items_show_their_marker() {
    assert_eq!(plain(&render("-\n- b", 20)), ["•", "• b"]);
}

#[test]
fn block_quotes_prefix_every_line() {
    let lines = render("> quoted text here\n>\n> again\n>> deeper", 12);
    assert_eq!(
        plain(&lines),
        ["│ quoted", "│ text here", "│", "│ again", "│", "│ │ deeper"]
    );
    assert_eq!(style_of(&lines, "quoted"), quote_style());
    assert_eq!(style_of(&lines, "│").role, Role::Quote);
}

#[test]
fn code_blocks_keep_lines_indent_and_hard_wrap() {
    let md = "```rust\nfn main() {\n\n\tlet x = 1;\n}\n```\n\nafter";
    let lines = render(md, 12);
    assert_eq!(
        plain(&lines),
        [
            "  fn main() ",
            "  {",
            "",
            "      let x ",
            "  = 1;",
            "  }",
            "",
            "after"
        ]
    );
    assert_eq!(style_of(&lines, "fn main").role, Role::Code);
    assert!(!plain(&lines).iter().any(|l| l.contains("```")));
}

#[test]
fn indented_code_blocks_render_like_fenced_ones() {
    assert_eq!(
        plain(&render("text\n\n    code  here\n", 20)),
        ["text", "", "  code  here"]
    );
}

#[test]
fn thematic_break_spans_the_width() {
    let lines = render("a\n\n---\n\nb", 5);
    assert_eq!(plain(&lines), ["a", "", "─────", "", "b"]);
    assert_eq!(style_of(&lines, "─"), Style::new(Role::Dim));
}

#[test]
fn tables_join_cells_and_rule_the_header() {
    let md = "| Name | Qty |\n|------|----:|\n| apple | 3 |\n| kiwi | 12 |";
    let lines = render(md, 40);
    assert_eq!(
        plain(&lines),
        ["Name  │ Qty", "──────┼────", "apple │   3", "kiwi  │  12"]
    );
    assert_eq!(style_of(&lines, "Name"), Style::new(Role::Text).bold());
}

#[test]
fn wide_tables_are_cut_to_fit() {
    let md = "| a | b |\n|---|---|\n| a long cell of text | another long cell |";
    let lines = render(md, 20);
    assert!(lines.iter().all(|l| l.width() <= 20), "{:?}", plain(&lines));
    assert!(plain(&lines).iter().any(|l| l.contains("│")));
}

#[test]
fn raw_html_is_shown_dim_and_sanitised() {
    let lines = render("<div>\u{1b}[31mhi</div>\n\ntext <b>x</b>", 40);
    assert_eq!(plain(&lines), ["<div>[31mhi</div>", "", "text <b>x</b>"]);
    assert_eq!(style_of(&lines, "<div>"), Style::new(Role::Dim));
    assert_eq!(style_of(&lines, "<b>"), Style::new(Role::Dim));
}

#[test]
fn control_characters_never_reach_spans() {
    let lines = render("a\u{7}b\u{1b}c \u{202e}d\n\n```\nx\u{9b}y\r\n```", 40);
    for span in lines.iter().flat_map(|l| &l.spans) {
        assert!(!span.text.chars().any(char::is_control), "{span:?}");
    }
    assert_eq!(plain(&lines), ["abc d", "", "  xy"]);
}

#[test]
fn zero_width_renders_nothing() {
    assert!(render("# hi", 0).is_empty());
}

#[test]
fn narrow_widths_still_fit() {
    let md = "> - 1. deep `code` 中文\n>   ```\n>   中文 code\n>   ```";
    for width in 1..12 {
        for line in render(md, width) {
            assert!(line.width() <= width, "{width}: {:?}", line.plain());
        }
    }
}
