//! The preview of a permission prompt: what the tool would do, as markdown the popup shows
//! beside the choices (a command fenced as shell, a file and its change as a diff, any other
//! input as JSON).

use serde_json::{Map, Value};

/// `text` fenced as a code block of `lang`, with a fence longer than any run of backticks in it.
pub fn fenced(lang: &str, text: &str) -> String {
    let longest = text
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or(0)
        .max(2);
    let fence = "`".repeat(longest + 1);
    let text = text.strip_suffix('\n').unwrap_or(text);
    format!("{fence}{lang}\n{text}\n{fence}")
}

/// The summary and the preview of a Claude Code tool's input: the command of `Bash`, the file
/// and its change of `Edit`, `MultiEdit` and `Write`, the URL of `WebFetch`, and any other
/// input as JSON.
pub fn tool_preview(tool: &str, input: &Map<String, Value>) -> (String, String) {
    let text = |key: &str| input.get(key).and_then(Value::as_str).unwrap_or("");
    match tool {
        "Bash" => (
            text("command").to_owned(),
            command_preview(text("command"), text("description")),
        ),
        "Edit" => {
            let diff = diff(text("old_string"), text("new_string"));
            (
                text("file_path").to_owned(),
                file_preview(text("file_path"), Some(("diff", &diff))),
            )
        }
        "MultiEdit" => {
            let diffs: Vec<String> = input
                .get("edits")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|e| {
                    let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("");
                    diff(s("old_string"), s("new_string"))
                })
                .collect();
            (
                text("file_path").to_owned(),
                file_preview(text("file_path"), Some(("diff", &diffs.join("\n")))),
            )
        }
        "Write" => (
            text("file_path").to_owned(),
            file_preview(text("file_path"), Some(("", text("content")))),
        ),
        "WebFetch" => (
            text("url").to_owned(),
            format!("{}\n\n{}", text("url"), text("prompt")),
        ),
        _ => {
            let json = serde_json::to_string_pretty(input).unwrap_or_default();
            (String::new(), fenced("json", &json))
        }
    }
}

/// A command as the preview shows it: fenced as shell, its description (when it has one) below.
pub fn command_preview(command: &str, description: &str) -> String {
    let fenced = fenced("sh", command);
    if description.is_empty() {
        fenced
    } else {
        format!("{fenced}\n\n{description}")
    }
}

/// A file as the preview shows it: its path, and below it `body` fenced as `lang` (its change,
/// or what is written), when there is one.
pub fn file_preview(path: &str, body: Option<(&str, &str)>) -> String {
    match body {
        Some((lang, body)) => format!("`{path}`\n\n{}", fenced(lang, body)),
        None => format!("`{path}`"),
    }
}

/// The change from `old` to `new` as a unified diff's lines: the lines both keep as context
/// (` `), the removed ones (`-`) and the added ones (`+`), in the order of the file (`similar`'s
/// line diff; no hunk headers: the preview shows one change).
fn diff(old: &str, new: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let mut out = String::new();
    for change in similar::TextDiff::from_slices(&old, &new).iter_all_changes() {
        out.push(match change.tag() {
            similar::ChangeTag::Equal => ' ',
            similar::ChangeTag::Delete => '-',
            similar::ChangeTag::Insert => '+',
        });
        out.push_str(change.value());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_fence_is_longer_than_the_backticks_inside() {
        assert_eq!(fenced("sh", "echo ```"), "````sh\necho ```\n````");
        assert_eq!(fenced("", "x"), "```\nx\n```");
    }

    #[test]
    fn an_edit_keeps_the_lines_it_does_not_change_as_context() {
        let input = json!({"file_path": "/p/a.rs", "old_string": "fn a() {\n    1\n}", "new_string": "fn a() {\n    2\n}"});
        let (summary, preview) = tool_preview("Edit", input.as_object().unwrap());
        assert_eq!(summary, "/p/a.rs");
        assert_eq!(
            preview,
            "`/p/a.rs`\n\n```diff\n fn a() {\n-    1\n+    2\n }\n```"
        );
    }
}
