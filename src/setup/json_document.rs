//! A JSON settings file (Claude Code's settings.json, Codex's hooks.json) edited as a document:
//! a member put into the container at a path of keys, or members taken out of it, and every
//! other byte of the file as it was. Going through `serde_json::Value` would write the user's
//! numbers anew (`1e2` as `100.0`, a long integer as a float) and their layout as serde_json
//! lays it out; the document (jsonc-parser's CST, as for opencode's config) keeps both.

use super::error::SetupError;
use jsonc_parser::cst::{CstInputValue, CstObject, CstObjectProp, CstRootNode};
use jsonc_parser::ParseOptions;
use serde_json::{json, Value};

/// What goes into a container: an element of a list, or a key and its value in an object.
#[derive(Clone, Debug, PartialEq)]
pub enum Member<'a> {
    Element(Value),
    Property(&'a str, Value),
}

impl Member<'_> {
    /// The value of a container at `keys` (below the first container missing from the file)
    /// holding only this member: objects down to the one that holds it, or the list.
    fn container(&self, keys: &[&str]) -> Value {
        match keys.split_first() {
            Some((key, rest)) => json!({ *key: self.container(rest) }),
            None => match self {
                Member::Element(value) => json!([value]),
                Member::Property(key, value) => json!({ *key: value }),
            },
        }
    }
}

/// A key on the path to the container, and how an error names what is found there when it is
/// not an object (or, for the last one, not the kind of container the member goes into).
pub type Key<'a> = (&'a str, &'static str);

/// What a settings file is read as: JSON and nothing else.
fn strict() -> ParseOptions {
    parse_options(false)
}

/// JSON, with comments and trailing commas where the file's program reads them (opencode's
/// config), and nothing else beyond JSON.
pub fn parse_options(comments_and_trailing_commas: bool) -> ParseOptions {
    ParseOptions {
        allow_comments: comments_and_trailing_commas,
        allow_trailing_commas: comments_and_trailing_commas,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// The file's value, as read to decide what to change (never written back).
pub fn value(text: &str) -> Result<Value, SetupError> {
    serde_json::from_str(text).map_err(|e| SetupError::NotJson(e.to_string()))
}

/// The file as a document whose root is an object.
fn document(text: &str) -> Result<(CstRootNode, CstObject), SetupError> {
    value(text)?;
    let root =
        CstRootNode::parse(text, &strict()).map_err(|e| SetupError::NotJson(e.to_string()))?;
    let object = root
        .value()
        .and_then(|v| v.as_object())
        .ok_or(SetupError::Unexpected("the file"))?;
    Ok((root, object))
}

/// `value` as the document takes it in.
pub fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(map) => CstInputValue::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), input(value)))
                .collect(),
        ),
    }
}

/// `text` (a file that is not empty) with `member` in the container at `path`, made (with the
/// objects above it) where the file has none; everything else as it was. `take_out` is the
/// change that takes the member out again: the member is written as the document lays out what
/// it adds (over lines, indented as the file is) when that gives the file back byte for byte,
/// else on one line after the container's last member (a container written on one line), else
/// as the document lays it out all the same.
pub fn put_in(
    text: &str,
    path: &[Key],
    member: &Member,
    take_out: impl Fn(&str) -> Result<Option<String>, SetupError>,
) -> Result<String, SetupError> {
    let (root, object) = document(text)?;
    laid_out(&object, path, member)?;
    let merged = root.to_string();
    let gives_back = |merged: &str| matches!(take_out(merged), Ok(Some(back)) if back == text);
    if gives_back(&merged) {
        return Ok(merged);
    }
    if let Some(one_line) = on_one_line(text, path, member) {
        if gives_back(&one_line) {
            return Ok(one_line);
        }
    }
    Ok(merged)
}

/// Puts `member` into the document under `object`, as the document lays it out.
fn laid_out(object: &CstObject, path: &[Key], member: &Member) -> Result<(), SetupError> {
    let mut object = object.clone();
    for (depth, (key, shown)) in path.iter().enumerate() {
        let Some(prop) = object.get(key) else {
            let below: Vec<&str> = path[depth + 1..].iter().map(|(k, _)| *k).collect();
            object.append(key, input(&member.container(&below)));
            return Ok(());
        };
        if depth + 1 < path.len() {
            object = prop.object_value().ok_or(SetupError::Unexpected(shown))?;
            continue;
        }
        match member {
            Member::Element(value) => {
                let list = prop.array_value().ok_or(SetupError::Unexpected(shown))?;
                list.append(input(value));
            }
            Member::Property(name, value) => {
                let container = prop.object_value().ok_or(SetupError::Unexpected(shown))?;
                match container.get(name) {
                    Some(there) => there.set_value(input(value)),
                    None => {
                        container.append(name, input(value));
                    }
                }
            }
        }
    }
    Ok(())
}

/// `text` with `member` written on one line after the last member of the deepest container of
/// `path` the file has (or in it, when it is empty): what `laid_out` would spread over lines.
fn on_one_line(text: &str, path: &[Key], member: &Member) -> Option<String> {
    use jsonc_parser::ast::Value as Ast;
    use jsonc_parser::common::Ranged;
    let parsed = jsonc_parser::parse_to_ast(text, &Default::default(), &strict()).ok()?;
    let mut current = parsed.value?;
    let mut written = None;
    for (depth, (key, _)) in path.iter().enumerate() {
        let Ast::Object(object) = &current else {
            return None;
        };
        let Some(prop) = object.properties.iter().find(|p| p.name.as_str() == *key) else {
            let below: Vec<&str> = path[depth + 1..].iter().map(|(k, _)| *k).collect();
            let value = member.container(&below);
            written = Some(format!(
                "{}: {}",
                json!(key),
                serde_json::to_string(&value).ok()?
            ));
            break;
        };
        current = prop.value.clone();
    }
    let written = match written {
        Some(written) => written,
        None => match member {
            Member::Element(value) => serde_json::to_string(value).ok()?,
            Member::Property(name, value) => {
                // A key it has already is written anew where it is, never twice.
                if let Ast::Object(object) = &current {
                    if object.properties.iter().any(|p| p.name.as_str() == *name) {
                        return None;
                    }
                }
                format!("{}: {}", json!(name), serde_json::to_string(value).ok()?)
            }
        },
    };
    let (start, last_end) = match &current {
        Ast::Object(object) => (
            object.range.start,
            object.properties.last().map(|p| p.range.end),
        ),
        Ast::Array(list) => (
            list.range.start,
            list.elements.last().map(|e| e.range().end),
        ),
        _ => return None,
    };
    let (at, written) = match last_end {
        Some(end) => (end, format!(", {written}")),
        None => (start + 1, written),
    };
    let mut merged = String::with_capacity(text.len() + written.len());
    merged.push_str(text.get(..at)?);
    merged.push_str(&written);
    merged.push_str(text.get(at..)?);
    Some(merged)
}

/// `text` without the members of the container at `path` that `ours` picks (given a property's
/// key, or None for an element, and its value); a container left empty goes too, and so does
/// each object above it left empty. None when there is no such member (or no file, or a file
/// whose root or path is not of objects).
pub fn take_out(
    text: &str,
    path: &[&str],
    ours: impl Fn(Option<&str>, &Value) -> bool,
) -> Result<Option<String>, SetupError> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let (root, mut object) = match document(text) {
        Ok(document) => document,
        Err(SetupError::Unexpected(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut props: Vec<CstObjectProp> = Vec::new();
    for (depth, key) in path.iter().enumerate() {
        let Some(prop) = object.get(key) else {
            return Ok(None);
        };
        if depth + 1 < path.len() {
            let Some(below) = prop.object_value() else {
                return Ok(None);
            };
            object = below;
        }
        props.push(prop);
    }
    let Some(container) = props.last() else {
        return Ok(None);
    };
    let mut picked = 0;
    if let Some(list) = container.array_value() {
        for element in list.elements() {
            if element.to_serde_value().is_some_and(|v| ours(None, &v)) {
                element.remove();
                picked += 1;
            }
        }
    } else if let Some(members) = container.object_value() {
        for prop in members.properties() {
            let name = prop.name().and_then(|n| n.decoded_value().ok());
            let value = prop.value().and_then(|v| v.to_serde_value());
            if matches!((name, value), (Some(name), Some(value)) if ours(Some(&name), &value)) {
                prop.remove();
                picked += 1;
            }
        }
    }
    if picked == 0 {
        return Ok(None);
    }
    for prop in props.into_iter().rev() {
        let empty = match prop.value() {
            Some(value) => match (value.as_array(), value.as_object()) {
                (Some(list), _) => list.elements().is_empty(),
                (_, Some(object)) => object.properties().is_empty(),
                _ => false,
            },
            None => false,
        };
        if !empty {
            break;
        }
        prop.remove();
    }
    Ok(Some(root.to_string()))
}
