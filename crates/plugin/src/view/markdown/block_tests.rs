//! The parser's events for each block construct, written as compact HTML-like text: `<p>`,
//! `<h2>`, `<ul>`, `<ol 3>`, `<li>`, `<pre>`, `<html>`, `<table lcr>`, `<head>`, `<tr>`, `<td>`,
//! `<em>`, `<strong>`, `<del>`, `<a>`, `<img>`, `` ` `` around code spans, `\n` for a soft
//! break, `<br>`, `<hr>` and `{ }`/`{x}` for task markers; text as it comes.

use super::emit::parse;
use super::event::{Alignment, Event, Tag};

pub(super) fn html(md: &str) -> String {
    let mut out = String::new();
    let mut open: Vec<&str> = Vec::new();
    parse(md, &mut |event| {
        match event {
            Event::Start(tag) => {
                let name = match &tag {
                    Tag::Paragraph => "p",
                    Tag::Heading(_) => "h",
                    Tag::BlockQuote => "blockquote",
                    Tag::CodeBlock => "pre",
                    Tag::HtmlBlock => "html",
                    Tag::List(None) => "ul",
                    Tag::List(Some(_)) => "ol",
                    Tag::Item => "li",
                    Tag::Table(_) => "table",
                    Tag::TableHead => "head",
                    Tag::TableRow => "tr",
                    Tag::TableCell => "td",
                    Tag::Emphasis => "em",
                    Tag::Strong => "strong",
                    Tag::Strikethrough => "del",
                    Tag::Link => "a",
                    Tag::Image => "img",
                };
                open.push(name);
                out.push('<');
                out.push_str(name);
                match tag {
                    Tag::Heading(level) => out.push_str(&level.to_string()),
                    Tag::List(Some(start)) => out.push_str(&format!(" {start}")),
                    Tag::Table(alignments) => {
                        out.push(' ');
                        for a in alignments {
                            out.push(match a {
                                Alignment::None => '-',
                                Alignment::Left => 'l',
                                Alignment::Center => 'c',
                                Alignment::Right => 'r',
                            });
                        }
                    }
                    _ => {}
                }
                out.push('>');
            }
            Event::End(_) => {
                out.push_str("</");
                out.push_str(open.pop().unwrap_or("?"));
                out.push('>');
            }
            Event::Text(t) | Event::Html(t) => out.push_str(t),
            Event::Code(t) => out.push_str(&format!("`{t}`")),
            Event::SoftBreak => out.push('\n'),
            Event::HardBreak => out.push_str("<br>"),
            Event::Rule => out.push_str("<hr>"),
            Event::TaskListMarker(checked) => out.push_str(if checked { "{x}" } else { "{ }" }),
        }
        true
    });
    assert!(open.is_empty(), "unclosed {open:?} in {out:?}");
    out
}

/// Checks each markdown text's events.
fn check(cases: &[(&str, &str)]) {
    for (md, want) in cases {
        assert_eq!(html(md), *want, "for {md:?}");
    }
}

#[test]
fn paragraphs_join_lines_with_soft_breaks_and_break_hard_at_two_spaces_or_a_backslash() {
    check(&[
        ("one\ntwo", "<p>one\ntwo</p>"),
        ("one\n   two  ", "<p>one\ntwo</p>"),
        ("one  \ntwo\\\nthree", "<p>one<br>two<br>three</p>"),
        ("one\n\n\ntwo", "<p>one</p><p>two</p>"),
        ("end  ", "<p>end</p>"),
        ("end\\", "<p>end\\</p>"),
        ("crlf\r\nlines\r\n", "<p>crlf\nlines</p>"),
        ("", ""),
        ("\n  \n", ""),
    ]);
}

#[test]
fn atx_headings_drop_their_hashes() {
    check(&[
        ("# one", "<h1>one</h>"),
        ("###### six ######", "<h6>six</h>"),
        ("####### seven", "<p>####### seven</p>"),
        ("#tag", "<p>#tag</p>"),
        ("## closed ##  ", "<h2>closed</h>"),
        ("## not#", "<h2>not#</h>"),
        ("## escaped \\#", "<h2>escaped #</h>"),
        ("#", "<h1></h>"),
        ("   # indented", "<h1>indented</h>"),
        ("text\n# interrupts", "<p>text</p><h1>interrupts</h>"),
    ]);
}

#[test]
fn setext_underlines_make_the_paragraph_above_a_heading() {
    check(&[
        ("Title\n===", "<h1>Title</h>"),
        ("Sub\n---", "<h2>Sub</h>"),
        ("two\nlines\n  ==  ", "<h1>two\nlines</h>"),
        ("---", "<hr>"),
        ("> quote\n---", "<blockquote><p>quote</p></blockquote><hr>"),
    ]);
}

#[test]
fn thematic_breaks() {
    check(&[
        ("***", "<hr>"),
        ("_ _ _", "<hr>"),
        (" - - -", "<hr>"),
        ("--", "<p>--</p>"),
        ("a\n\n***\nb", "<p>a</p><hr><p>b</p>"),
        ("***a", "<p>***a</p>"),
    ]);
}

#[test]
fn fenced_code_blocks() {
    check(&[
        ("```rust\nfn x() {}\n```", "<pre>fn x() {}\n</pre>"),
        ("~~~\n```\n~~~", "<pre>```\n</pre>"),
        ("````\n```\n`````", "<pre>```\n</pre>"),
        (
            "```\na\n``` not closing\n```",
            "<pre>a\n``` not closing\n</pre>",
        ),
        (
            "  ```\n    two\n one\nnone\n  ```",
            "<pre>  two\none\nnone\n</pre>",
        ),
        (
            "```\nunclosed\n\nruns on",
            "<pre>unclosed\n\nruns on\n</pre>",
        ),
        ("``` a`b\n```", "<p>``` a`b</p><pre></pre>"),
        ("text\n```\ncode\n```", "<p>text</p><pre>code\n</pre>"),
        ("```\n```", "<pre></pre>"),
    ]);
}

#[test]
fn indented_code_blocks() {
    check(&[
        ("    code\n      more", "<pre>code\n  more\n</pre>"),
        ("\tcode", "<pre>code\n</pre>"),
        ("    a\n\n    b\n\n", "<pre>a\n\nb\n</pre>"),
        ("para\n    not code", "<p>para\nnot code</p>"),
    ]);
}

#[test]
fn block_quotes_nest_and_continue_lazily() {
    check(&[
        ("> a\n> b", "<blockquote><p>a\nb</p></blockquote>"),
        ("> a\nlazy", "<blockquote><p>a\nlazy</p></blockquote>"),
        (
            "> a\n>> b\n> c",
            "<blockquote><p>a</p><blockquote><p>b\nc</p></blockquote></blockquote>",
        ),
        ("> a\n\nb", "<blockquote><p>a</p></blockquote><p>b</p>"),
        (">\n", "<blockquote></blockquote>"),
        (
            "> # h\n> - i",
            "<blockquote><h1>h</h><ul><li>i</li></ul></blockquote>",
        ),
    ]);
}

#[test]
fn lists_nest_by_their_content_indentation() {
    check(&[
        (
            "- a\n* b\n+ c",
            "<ul><li>a</li></ul><ul><li>b</li></ul><ul><li>c</li></ul>",
        ),
        ("1. a\n2. b", "<ol 1><li>a</li><li>b</li></ol>"),
        ("3) a\n4) b", "<ol 3><li>a</li><li>b</li></ol>"),
        ("1. a\n1) b", "<ol 1><li>a</li></ol><ol 1><li>b</li></ol>"),
        (
            "- a\n  - b\n    - c\n- d",
            "<ul><li>a<ul><li>b<ul><li>c</li></ul></li></ul></li><li>d</li></ul>",
        ),
        ("- a\n - b", "<ul><li>a</li><li>b</li></ul>"),
        (
            "10. a\n    - b",
            "<ol 10><li>a<ul><li>b</li></ul></li></ol>",
        ),
        ("- a\ncontinued", "<ul><li>a\ncontinued</li></ul>"),
        ("-\n  a", "<ul><li>a</li></ul>"),
        ("-\n\n  a", "<ul><li></li></ul><p>a</p>"),
        ("-     code", "<ul><li><pre>code\n</pre></li></ul>"),
        ("text\n2. not a list", "<p>text\n2. not a list</p>"),
        ("text\n1. a list", "<p>text</p><ol 1><li>a list</li></ol>"),
        ("text\n*\nmore", "<p>text\n*\nmore</p>"),
        ("text\n-\nmore", "<h2>text</h><p>more</p>"),
        ("-a", "<p>-a</p>"),
        ("1234567890. a", "<p>1234567890. a</p>"),
    ]);
}

#[test]
fn loose_lists_wrap_their_items_in_paragraphs() {
    check(&[
        ("- a\n- b", "<ul><li>a</li><li>b</li></ul>"),
        ("- a\n\n- b", "<ul><li><p>a</p></li><li><p>b</p></li></ul>"),
        ("- a\n\n  b", "<ul><li><p>a</p><p>b</p></li></ul>"),
        ("- a\n- b\n\n", "<ul><li>a</li><li>b</li></ul>"),
        (
            "- a\n  - b\n\n  - c\n- d",
            "<ul><li>a<ul><li><p>b</p></li><li><p>c</p></li></ul></li><li>d</li></ul>",
        ),
        (
            "* a\n  > b\n  >\n* c",
            "<ul><li>a<blockquote><p>b</p></blockquote></li><li>c</li></ul>",
        ),
        (
            "- a\n  ```\n  x\n\n  ```\n- b",
            "<ul><li>a<pre>x\n\n</pre></li><li>b</li></ul>",
        ),
        ("- # h\n  ---\n  b", "<ul><li><h1>h</h><hr>b</li></ul>"),
        ("- h\n  ---\n  b", "<ul><li><h2>h</h>b</li></ul>"),
    ]);
}

#[test]
fn task_list_markers_begin_items() {
    check(&[
        (
            "- [ ] todo\n- [x] done\n- [X] too",
            "<ul><li>{ }todo</li><li>{x}done</li><li>{x}too</li></ul>",
        ),
        (
            "- [ ] a\n\n- [x] b",
            "<ul><li><p>{ }a</p></li><li><p>{x}b</p></li></ul>",
        ),
        ("1. [x] ordered", "<ol 1><li>{x}ordered</li></ol>"),
        ("- [ ]", "<ul><li>[ ]</li></ul>"),
        ("- [ ]x", "<ul><li>[ ]x</li></ul>"),
        ("- [y] no", "<ul><li>[y] no</li></ul>"),
        ("[ ] not in a list", "<p>[ ] not in a list</p>"),
        ("- a\n  [ ] later", "<ul><li>a\n[ ] later</li></ul>"),
    ]);
}

#[test]
fn tables_have_a_header_alignments_and_rows_until_a_line_without_a_pipe() {
    check(&[
        (
            "| a | b |\n|---|:-:|\n| 1 | 2 |",
            "<table -c><head><td>a</td><td>b</td></head><tr><td>1</td><td>2</td></tr></table>",
        ),
        (
            "a | b | c\n:-- | --: | ---\nx | y | z\nafter",
            "<table lr-><head><td>a</td><td>b</td><td>c</td></head>\
             <tr><td>x</td><td>y</td><td>z</td></tr></table><p>after</p>",
        ),
        (
            "| a | b |\n|---|---|\n| short |\n| 1 | 2 | extra |\n\nnext",
            "<table --><head><td>a</td><td>b</td></head><tr><td>short</td><td></td></tr>\
             <tr><td>1</td><td>2</td><td>extra</td></tr></table><p>next</p>",
        ),
        (
            "| `a\\|b` | c \\| d |\n|-|-|",
            "<table --><head><td>`a|b`</td><td>c | d</td></head></table>",
        ),
        (
            "intro\n| a |\n| - |\n| *b* |",
            "<p>intro</p><table -><head><td>a</td></head><tr><td><em>b</em></td></tr></table>",
        ),
        ("| a | b |\n|---|", "<p>| a | b |\n|---|</p>"),
        ("a\n---|---", "<p>a\n---|---</p>"),
        (
            "> | a |\n> |---|\n> | b |",
            "<blockquote><table -><head><td>a</td></head><tr><td>b</td></tr></table></blockquote>",
        ),
    ]);
}

#[test]
fn html_blocks_are_raw_lines_up_to_a_blank_line() {
    check(&[
        (
            "<div>\n*raw*\n</div>\n\n*md*",
            "<html><div>\n*raw*\n</div>\n</html><p><em>md</em></p>",
        ),
        ("</details>", "<html></details>\n</html>"),
        (
            "<!-- a\n\nb -->\nafter",
            "<html><!-- a\n\nb -->\n</html><p>after</p>",
        ),
        (
            "<!DOCTYPE html>\ntext",
            "<html><!DOCTYPE html>\n</html><p>text</p>",
        ),
        (
            "<pre>\n\ncode\n</pre>",
            "<html><pre>\n\ncode\n</pre>\n</html>",
        ),
        ("<custom-tag>\nx", "<html><custom-tag>\nx\n</html>"),
        ("<b>bold</b> text", "<p><b>bold</b> text</p>"),
        ("para\n<custom>", "<p>para\n<custom></p>"),
        ("para\n<div>", "<p>para</p><html><div>\n</html>"),
        ("<notatag", "<p><notatag</p>"),
    ]);
}

#[test]
fn markers_deeper_than_the_cap_are_text() {
    let md = format!("{}deep", "> ".repeat(100));
    let out = html(&md);
    assert_eq!(
        out.matches("<blockquote>").count(),
        super::blocks::MAX_OPEN - 1
    );
    assert!(out.contains("> > deep"), "{out}");
    let md = format!("{}item", "- ".repeat(100));
    assert!(html(&md).contains("item"));
    let md: String = (0..100)
        .map(|i| format!("{}- {i}\n", "  ".repeat(i)))
        .collect();
    let out = html(&md);
    assert!(out.contains("99"), "{out}");
}

#[test]
fn the_sink_can_stop_the_parser() {
    let mut seen = 0;
    parse("a\n\nb\n\nc", &mut |_| {
        seen += 1;
        seen < 2
    });
    assert_eq!(seen, 2);
}
