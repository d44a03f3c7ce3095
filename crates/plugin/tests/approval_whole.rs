//! An approval's preview within what the command calls "shown whole"
//! (`ask_popup_protocol::approval::WHOLE_PREVIEW_BYTES` and `WHOLE_PREVIEW_LINES`) is laid out
//! whole at every width the popup draws a preview at: the command offers Allow on exactly those,
//! so none of them may end with "the rest is not shown".

use ask_popup_plugin::view::markdown;
use ask_popup_protocol::approval::{WHOLE_PREVIEW_BYTES, WHOLE_PREVIEW_LINES};

/// `text` fenced as a shell block, as the approval hook shows a command.
fn fenced(text: &str) -> String {
    format!("```sh\n{text}\n```")
}

/// Previews at the limits, of the shapes that cost the most lines and styled runs.
fn at_the_limits() -> Vec<(&'static str, String)> {
    let budget = WHOLE_PREVIEW_BYTES - 16;
    let one_line = "x".repeat(budget);
    let line = "echo \"$HOME\" | grep -v 'a' && ls -la ; true # c\n";
    let many_lines: String = line
        .repeat(budget / line.len())
        .lines()
        .take(WHOLE_PREVIEW_LINES - 2)
        .collect::<Vec<_>>()
        .join("\n");
    let short_lines = "a\n".repeat(WHOLE_PREVIEW_LINES - 3);
    let words = "ab cd ".repeat(budget / 6);
    vec![
        ("one long line", fenced(&one_line)),
        ("many shell lines", fenced(&many_lines)),
        ("short lines", fenced(&short_lines)),
        ("words", words),
    ]
}

#[test]
fn a_preview_the_command_allows_is_laid_out_whole_at_every_width() {
    for width in [12, 16, 24, 40, 80, 160] {
        for (shape, preview) in at_the_limits() {
            assert!(preview.len() <= WHOLE_PREVIEW_BYTES, "{shape}");
            assert!(preview.lines().count() <= WHOLE_PREVIEW_LINES, "{shape}");
            let lines = markdown::render(&preview, width);
            let last = lines.last().map(|l| l.plain()).unwrap_or_default();
            assert!(
                !last.contains("the rest is not shown"),
                "{shape} at {width} columns: {} lines, cut: {last}",
                lines.len()
            );
        }
    }
}
