//! The parser's events for each inline construct, in the notation of `block_tests.rs`, and
//! what it does with what it does not understand: shows it as the text it is.

use super::block_tests::html;
use super::event::Event;

/// Checks each text's events as one paragraph.
fn check(cases: &[(&str, &str)]) {
    for (md, want) in cases {
        assert_eq!(html(md), format!("<p>{want}</p>"), "for {md:?}");
    }
}

#[test]
fn backslash_escapes_ascii_punctuation_only() {
    check(&[
        ("\\*not em\\*", "*not em*"),
        ("\\[a\\](b) \\` \\\\ \\~", "[a](b) ` \\ ~"),
        ("\\a \\é", "\\a \\é"),
        ("`\\*`", "`\\*`"),
    ]);
}

#[test]
fn code_spans_pair_backtick_runs_of_equal_length() {
    check(&[
        ("`code`", "`code`"),
        ("``a ` b``", "`a ` b`"),
        ("` a `", "`a`"),
        ("`  a  `", "` a `"),
        ("` `", "` `"),
        ("`a\nb`", "`a\nb`"),
        ("```a``", "```a``"),
        ("`a``", "`a``"),
        ("`*a*` *b*", "`*a*` <em>b</em>"),
        ("`<b>`", "`<b>`"),
    ]);
}

#[test]
fn emphasis_and_strong_follow_the_flanking_rules() {
    check(&[
        ("*a* _b_", "<em>a</em> <em>b</em>"),
        ("**a** __b__", "<strong>a</strong> <strong>b</strong>"),
        ("***a***", "<em><strong>a</strong></em>"),
        ("*a **b** c*", "<em>a <strong>b</strong> c</em>"),
        ("snake_case_name", "snake_case_name"),
        ("in*word*s", "in<em>word</em>s"),
        ("a * b *", "a * b *"),
        ("a * b * c", "a * b * c"),
        ("*a", "*a"),
        ("a**", "a**"),
        ("**a*", "*<em>a</em>"),
        ("*foo**bar**baz*", "<em>foo<strong>bar</strong>baz</em>"),
        ("*(a)*", "<em>(a)</em>"),
        ("_a*", "_a*"),
        ("**a\nb**", "<strong>a\nb</strong>"),
    ]);
}

#[test]
fn strikethrough_takes_one_or_two_tildes() {
    check(&[
        ("~~gone~~", "<del>gone</del>"),
        ("~gone~", "<del>gone</del>"),
        ("~~a~", "~~a~"),
        ("x ~~~a~~~", "x ~~~a~~~"),
        ("~/dir and ~/other", "~/dir and ~/other"),
        ("a~b~c", "a~b~c"),
        ("a~~b~~c", "a<del>b</del>c"),
    ]);
}

#[test]
fn links_show_their_text() {
    check(&[
        ("[text](https://x.y)", "<a>text</a>"),
        ("[t](<a b> \"title\")", "<a>t</a>"),
        ("[t](url 'title') [u](url (title))", "<a>t</a> <a>u</a>"),
        ("[t]()", "<a>t</a>"),
        ("[t](a(b)c)", "<a>t</a>"),
        ("[*em* `code`](x)", "<a><em>em</em> `code`</a>"),
        ("[a [b](c) d](e)", "[a <a>b</a> d](e)"),
        ("[a](b c)", "[a](b c)"),
        ("[a] (b)", "[a] (b)"),
        ("[a](b", "[a](b"),
        ("*[a*](b)", "*<a>a*</a>"),
        ("[a]", "[a]"),
        ("[a][b]", "[a][b]"),
        ("]a[", "]a["),
        ("[[a](b)]", "[<a>a</a>]"),
    ]);
}

#[test]
fn images_show_their_alt_text() {
    check(&[
        ("![a cat](cat.png)", "<img>a cat</img>"),
        ("![*a*](b \"t\")", "<img><em>a</em></img>"),
        ("[![img](a)](b)", "<a><img>img</img></a>"),
        ("!", "!"),
        ("![a]", "![a]"),
    ]);
}

#[test]
fn autolinks_are_links_to_themselves() {
    check(&[
        ("<https://x.y/a?b>", "<a>https://x.y/a?b</a>"),
        ("<a@b.c>", "<a>a@b.c</a>"),
        ("<mailto:a@b.c>", "<a>mailto:a@b.c</a>"),
        ("<https://a b>", "<https://a b>"),
        ("<a@b>", "<a>a@b</a>"),
        ("<@b.c>", "<@b.c>"),
    ]);
}

#[test]
fn inline_html_is_raw_text() {
    check(&[
        ("a <b>bold</b> c", "a <b>bold</b> c"),
        (
            "x <span class=\"x\" id='y' hidden data-a=b/>",
            "x <span class=\"x\" id='y' hidden data-a=b/>",
        ),
        ("a <!-- c --> b", "a <!-- c --> b"),
        (
            "a <?php x ?> <!DOCTYPE y> <![CDATA[z]]>",
            "a <?php x ?> <!DOCTYPE y> <![CDATA[z]]>",
        ),
        ("a < b > c", "a < b > c"),
        ("<a href=\"x", "<a href=\"x"),
        ("a <!-- unclosed", "a <!-- unclosed"),
        ("x <3", "x <3"),
    ]);
}

#[test]
fn entities_named_in_the_table_and_every_numeric_one() {
    check(&[
        ("&amp; &lt; &gt; &quot; &apos;", "& < > \" '"),
        (
            "&copy; &reg; &trade; &hellip; &mdash; &ndash;",
            "© ® ™ … — –",
        ),
        (
            "&laquo; &raquo; &times; &rarr; &larr; &check;",
            "« » × → ← ✓",
        ),
        ("a&nbsp;b", "a\u{a0}b"),
        ("&#123; &#x7B; &#X7b;", "{ { {"),
        ("&#0; &#x110000; &#xD800;", "\u{fffd} \u{fffd} \u{fffd}"),
        ("&#12345678; &#x1234567;", "&#12345678; &#x1234567;"),
        (
            "&unknown; &AElig; &amp &; &#; &#x;",
            "&unknown; &AElig; &amp &; &#; &#x;",
        ),
        ("`&amp;`", "`&amp;`"),
    ]);
}

#[test]
fn syntax_that_does_not_close_is_text() {
    check(&[
        (
            "a * b _ c ~ d ` e [ f ] g ! h < i & j |",
            "a * b _ c ~ d ` e [ f ] g ! h < i & j |",
        ),
        ("**", "**"),
        ("__init__.py", "<strong>init</strong>.py"),
        ("a__b__c", "a__b__c"),
        ("[*a](b", "[*a](b"),
        ("\\", "\\"),
    ]);
}

#[test]
fn long_runs_of_unclosed_syntax_keep_their_text() {
    for unit in [
        "[a](", "<!--a", "*a", "a*", "_a", "**a", "``a", "[a", "![a", "<a b=\"", "&#a", "[a](<",
        "[a](b \"", "*_a", "~~a", "<a:", "((((a", "a\\\n", "> a", "- a", "1. a", "a|",
    ] {
        let md = unit.repeat(4096 / unit.len());
        let mut shown = 0;
        super::emit::parse(&md, &mut |event| {
            if let Event::Text(t) | Event::Code(t) | Event::Html(t) = event {
                shown += t.matches('a').count();
            }
            true
        });
        assert_eq!(shown, md.matches('a').count(), "{unit:?}");
    }
}
