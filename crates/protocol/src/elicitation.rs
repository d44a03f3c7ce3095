//! An MCP server's form (elicitation's `requested_schema`, as Claude Code's `Elicitation` hook
//! hands it on): its fields read and checked, what the person types checked against a field's
//! rules as they type, and the content and the hook's answer sent back.
//!
//! A form is a flat object of primitive properties (MCP 2025-06-18 and later; the 2026-07-28
//! revision's `input_required` results carry the same shape): strings (`minLength`,
//! `maxLength`, `format` email / uri / date / date-time, `default`), numbers and integers
//! (`minimum`, `maximum`), booleans, single-select enums (`enum`, with the legacy `enumNames`,
//! or `oneOf` of `const` and `title`) and multi-select arrays of such enums (`minItems`,
//! `maxItems`); `required` names the fields that must be filled. Nothing that schema refuses is
//! ever sent: the server would refuse it too.

use formats::{is_date, is_date_time, is_email, is_uri};
use serde_json::{Map, Value};
use thiserror::Error;

pub mod answers;
mod formats;
pub mod number;
pub mod page;

/// At most this many fields are taken from a form (the dialog pages them four at a time).
pub const MAX_FIELDS: usize = 32;
/// At most this many choices in one field.
pub const MAX_CHOICES: usize = 64;

/// A form the dialog can ask.
#[derive(Clone, Debug, PartialEq)]
pub struct Form {
    pub fields: Vec<Field>,
}

/// One property of the form.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The property's name: the key of its value in the content.
    pub name: String,
    /// What the person reads: the schema's `title`, else the name.
    pub title: String,
    pub description: Option<String>,
    pub required: bool,
    pub kind: Kind,
    /// The schema's `format` as written, also one this module has no rule for.
    pub format: Option<String>,
}

/// What a field takes, with its rules and its default.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Text {
        min_length: Option<usize>,
        max_length: Option<usize>,
        format: Option<TextFormat>,
        default: Option<String>,
    },
    Number {
        integer: bool,
        minimum: Option<f64>,
        maximum: Option<f64>,
        default: Option<f64>,
    },
    Boolean {
        default: Option<bool>,
    },
    /// One of `choices`.
    Choice {
        choices: Vec<Choice>,
        default: Option<String>,
    },
    /// Any of `choices`, as many as the bounds allow.
    Choices {
        choices: Vec<Choice>,
        min_items: Option<usize>,
        max_items: Option<usize>,
        default: Vec<String>,
    },
}

/// The string formats MCP names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextFormat {
    Email,
    Uri,
    Date,
    DateTime,
}

/// An enum's value and the title shown for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub value: String,
    pub title: String,
}

/// Why a form cannot be asked in the popup (it is left to the agent's own form).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FormError {
    #[error("the requested schema is not an object with properties")]
    NotAnObject,
    #[error("the form has no fields")]
    NoFields,
    #[error("the form has more than {MAX_FIELDS} fields")]
    TooManyFields,
    #[error("field {0:?}: {1}")]
    Field(String, &'static str),
}

/// Why a value does not fit its field: the message the dialog shows under it.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum Misfit {
    #[error("Required")]
    Required,
    #[error("At least {0} characters")]
    TooShort(usize),
    #[error("At most {0} characters")]
    TooLong(usize),
    #[error("Not an email address (name@example.com)")]
    NotEmail,
    #[error("Not a URL (https://…)")]
    NotUri,
    #[error("Not a date (YYYY-MM-DD)")]
    NotDate,
    #[error("Not a date and time (YYYY-MM-DDTHH:MM:SSZ)")]
    NotDateTime,
    #[error("Not a number")]
    NotNumber,
    #[error("Not a whole number")]
    NotInteger,
    #[error("At least {0}")]
    BelowMinimum(String),
    #[error("At most {0}")]
    AboveMaximum(String),
    #[error("Pick at least {0}")]
    TooFewPicked(usize),
    #[error("Pick at most {0}")]
    TooManyPicked(usize),
    #[error("Not one of the choices")]
    NotAChoice,
}

impl Form {
    /// Reads a `requested_schema`.
    pub fn parse(schema: &Value) -> Result<Form, FormError> {
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .ok_or(FormError::NotAnObject)?;
        if properties.is_empty() {
            return Err(FormError::NoFields);
        }
        if properties.len() > MAX_FIELDS {
            return Err(FormError::TooManyFields);
        }
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let fields = properties
            .iter()
            .map(|(name, property)| Field::parse(name, property, required.contains(&name.as_str())))
            .collect::<Result<_, _>>()?;
        Ok(Form { fields })
    }

    /// The content of the values given (`None`: left empty), each checked: the first field
    /// whose value does not fit, with why.
    pub fn content(&self, values: &[Option<Value>]) -> Result<Map<String, Value>, (usize, Misfit)> {
        let mut content = Map::new();
        for (i, field) in self.fields.iter().enumerate() {
            match values.get(i).cloned().flatten() {
                Some(value) => {
                    field.check_value(&value).map_err(|m| (i, m))?;
                    content.insert(field.name.clone(), value);
                }
                None if field.required => return Err((i, Misfit::Required)),
                None => {}
            }
        }
        Ok(content)
    }
}

impl Field {
    fn parse(name: &str, property: &Value, required: bool) -> Result<Field, FormError> {
        let bad = |why| FormError::Field(name.to_owned(), why);
        let text = |key: &str| property.get(key).and_then(Value::as_str).map(str::to_owned);
        let count = |key: &str| {
            property
                .get(key)
                .and_then(Value::as_u64)
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        };
        let format = text("format");
        let kind = match property.get("type").and_then(Value::as_str) {
            Some("string") => match choices(property).map_err(bad)? {
                Some(choices) => {
                    let default = text("default").filter(|d| choices.iter().any(|c| &c.value == d));
                    Kind::Choice { choices, default }
                }
                None => Kind::Text {
                    min_length: count("minLength"),
                    max_length: count("maxLength"),
                    format: match format.as_deref() {
                        Some("email") => Some(TextFormat::Email),
                        Some("uri") => Some(TextFormat::Uri),
                        Some("date") => Some(TextFormat::Date),
                        Some("date-time") => Some(TextFormat::DateTime),
                        _ => None,
                    },
                    default: text("default"),
                },
            },
            Some(t @ ("number" | "integer")) => Kind::Number {
                integer: t == "integer",
                minimum: property.get("minimum").and_then(Value::as_f64),
                maximum: property.get("maximum").and_then(Value::as_f64),
                default: property.get("default").and_then(Value::as_f64),
            },
            Some("boolean") => Kind::Boolean {
                default: property.get("default").and_then(Value::as_bool),
            },
            Some("array") => {
                let items = property
                    .get("items")
                    .ok_or_else(|| bad("an array without items"))?;
                let choices = choices(items)
                    .map_err(bad)?
                    .ok_or_else(|| bad("an array whose items are not choices"))?;
                let default = property
                    .get("default")
                    .and_then(Value::as_array)
                    .map(|d| {
                        d.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                Kind::Choices {
                    choices,
                    min_items: count("minItems"),
                    max_items: count("maxItems"),
                    default,
                }
            }
            _ => {
                return Err(bad(
                    "not a string, number, integer, boolean or array of choices",
                ))
            }
        };
        Ok(Field {
            name: name.to_owned(),
            title: text("title")
                .filter(|t| !t.trim().is_empty())
                .unwrap_or_else(|| name.to_owned()),
            description: text("description").filter(|d| !d.trim().is_empty()),
            required,
            kind,
            format,
        })
    }

    /// Whether what is typed here is a secret, shown to nobody but the one caller: a
    /// `password` format, or a name or title that says so (`names_a_secret`).
    pub fn is_secret(&self) -> bool {
        self.format.as_deref() == Some("password")
            || names_a_secret(&self.name)
            || names_a_secret(&self.title)
    }

    /// The value of what the person typed into a text or number field, or why it does not
    /// fit (shown as they type). An empty text is no value: `Required` when the field is.
    pub fn typed(&self, typed: &str) -> Result<Option<Value>, Misfit> {
        let value = match &self.kind {
            Kind::Text { .. } if typed.is_empty() => None,
            Kind::Text { .. } => Some(Value::from(typed)),
            Kind::Number { .. } if typed.trim().is_empty() => None,
            Kind::Number { integer: true, .. } => {
                let n: i64 = typed.trim().parse().map_err(|_| {
                    if number::read(typed).is_some() {
                        Misfit::NotInteger
                    } else {
                        Misfit::NotNumber
                    }
                })?;
                Some(Value::from(n))
            }
            Kind::Number { .. } => {
                let n = number::read(typed).ok_or(Misfit::NotNumber)?;
                // A whole number is sent as one (`3`, not `3.0`).
                Some(if n.fract() == 0.0 && n.abs() < 9e15 {
                    Value::from(n as i64)
                } else {
                    serde_json::Number::from_f64(n)
                        .map(Value::Number)
                        .ok_or(Misfit::NotNumber)?
                })
            }
            _ => return Err(Misfit::NotAChoice),
        };
        match value {
            Some(value) => self.check_value(&value).map(|()| Some(value)),
            None if self.required => Err(Misfit::Required),
            None => Ok(None),
        }
    }

    /// Whether `value` fits this field's type and rules.
    pub fn check_value(&self, value: &Value) -> Result<(), Misfit> {
        match &self.kind {
            Kind::Text {
                min_length,
                max_length,
                format,
                ..
            } => {
                let text = value.as_str().ok_or(Misfit::NotAChoice)?;
                let length = text.chars().count();
                if min_length.is_some_and(|min| length < min) {
                    return Err(Misfit::TooShort(min_length.unwrap_or_default()));
                }
                if max_length.is_some_and(|max| length > max) {
                    return Err(Misfit::TooLong(max_length.unwrap_or_default()));
                }
                match format {
                    Some(TextFormat::Email) if !is_email(text) => Err(Misfit::NotEmail),
                    Some(TextFormat::Uri) if !is_uri(text) => Err(Misfit::NotUri),
                    Some(TextFormat::Date) if !is_date(text) => Err(Misfit::NotDate),
                    Some(TextFormat::DateTime) if !is_date_time(text) => Err(Misfit::NotDateTime),
                    _ => Ok(()),
                }
            }
            Kind::Number {
                integer,
                minimum,
                maximum,
                ..
            } => {
                let n = value.as_f64().ok_or(Misfit::NotNumber)?;
                if *integer && !(value.is_i64() || value.is_u64()) {
                    return Err(Misfit::NotInteger);
                }
                if let Some(min) = minimum.filter(|min| n < *min) {
                    return Err(Misfit::BelowMinimum(number::text(min)));
                }
                if let Some(max) = maximum.filter(|max| n > *max) {
                    return Err(Misfit::AboveMaximum(number::text(max)));
                }
                Ok(())
            }
            Kind::Boolean { .. } => value.as_bool().map(|_| ()).ok_or(Misfit::NotAChoice),
            Kind::Choice { choices, .. } => {
                let picked = value.as_str().ok_or(Misfit::NotAChoice)?;
                choices
                    .iter()
                    .any(|c| c.value == picked)
                    .then_some(())
                    .ok_or(Misfit::NotAChoice)
            }
            Kind::Choices {
                choices,
                min_items,
                max_items,
                ..
            } => {
                let picked = value.as_array().ok_or(Misfit::NotAChoice)?;
                let known = |p: &Value| {
                    p.as_str()
                        .is_some_and(|p| choices.iter().any(|c| c.value == p))
                };
                if !picked.iter().all(known) {
                    return Err(Misfit::NotAChoice);
                }
                if let Some(min) = min_items.filter(|min| picked.len() < *min) {
                    return Err(Misfit::TooFewPicked(min));
                }
                if let Some(max) = max_items.filter(|max| picked.len() > *max) {
                    return Err(Misfit::TooManyPicked(max));
                }
                Ok(())
            }
        }
    }

    /// The value the field starts with: its default, where it fits.
    pub fn default_value(&self) -> Option<Value> {
        let value = match &self.kind {
            Kind::Text { default, .. } => default.clone().map(Value::from),
            Kind::Number {
                integer, default, ..
            } => default.and_then(|d| {
                if *integer || d.fract() == 0.0 {
                    Some(Value::from(d as i64))
                } else {
                    serde_json::Number::from_f64(d).map(Value::Number)
                }
            }),
            Kind::Boolean { default } => default.map(Value::from),
            Kind::Choice { default, .. } => default.clone().map(Value::from),
            Kind::Choices { default, .. } if default.is_empty() => None,
            Kind::Choices { default, .. } => Some(Value::from(default.clone())),
        };
        value.filter(|v| self.check_value(v).is_ok())
    }
}

/// Whether a field's name or title names a secret, read as words (`words`): a word that holds
/// a long secret's word (`db_password`, `authToken`, `tokenizer` too: safer to hide), one of
/// the short ones alone or plural (`PIN code`, `card_pin`, `pinCode`, but not `spinner` nor
/// `pinned_version`), or `api key` and `private key` as two words.
fn names_a_secret(text: &str) -> bool {
    const HELD: [&str; 9] = [
        "password",
        "passwd",
        "passphrase",
        "passcode",
        "secret",
        "token",
        "apikey",
        "privatekey",
        "credential",
    ];
    const ALONE: [&str; 3] = ["pin", "otp", "pwd"];
    let words = words(text);
    words.iter().enumerate().any(|(i, word)| {
        let single = word.strip_suffix('s').unwrap_or(word);
        let key_follows = words.get(i + 1).is_some_and(|n| n == "key" || n == "keys");
        HELD.iter().any(|held| word.contains(held))
            || ALONE.contains(&single)
            || (key_follows && (word.ends_with("api") || word.ends_with("private")))
    })
}

/// `text` in lowercase words: split at anything not an ASCII letter or digit (the words looked
/// for are English; Unicode's tables would cost the plugin kilobytes), where letters and digits
/// meet, and where camelCase starts a word (`cardPIN2` is card, pin, 2; `PINCode` is pin, code;
/// `PINs` stays one).
fn words(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for (i, &c) in bytes.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            words.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            continue;
        }
        let at = |j: usize| bytes.get(j).copied().filter(u8::is_ascii_alphanumeric);
        let starts = match i.checked_sub(1).and_then(at) {
            Some(prev) => {
                let lower_at = |j| at(j).is_some_and(|c| c.is_ascii_lowercase());
                c.is_ascii_digit() != prev.is_ascii_digit()
                    || (c.is_ascii_uppercase() && !prev.is_ascii_uppercase())
                    || (c.is_ascii_uppercase() && lower_at(i + 1) && lower_at(i + 2))
            }
            None => false,
        };
        if starts {
            words.push(std::mem::take(&mut word));
        }
        word.push(char::from(c.to_ascii_lowercase()));
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

/// An enum's choices (`enum` with `enumNames`, or `oneOf` / `anyOf` of `const` and `title`), or
/// `None` when `schema` is no enum.
fn choices(schema: &Value) -> Result<Option<Vec<Choice>>, &'static str> {
    let list: Vec<Choice> = if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let value = v.as_str().ok_or("an enum value that is not a string")?;
                let title = names
                    .and_then(|n| n.get(i))
                    .and_then(Value::as_str)
                    .unwrap_or(value);
                Ok(Choice {
                    value: value.to_owned(),
                    title: title.to_owned(),
                })
            })
            .collect::<Result<_, &'static str>>()?
    } else if let Some(options) = ["oneOf", "anyOf"]
        .iter()
        .find_map(|key| schema.get(*key).and_then(Value::as_array))
    {
        options
            .iter()
            .map(|o| {
                let value = o
                    .get("const")
                    .and_then(Value::as_str)
                    .ok_or("a choice without a string const")?;
                let title = o.get("title").and_then(Value::as_str).unwrap_or(value);
                Ok(Choice {
                    value: value.to_owned(),
                    title: title.to_owned(),
                })
            })
            .collect::<Result<_, &'static str>>()?
    } else {
        return Ok(None);
    };
    if list.is_empty() {
        return Err("an enum without choices");
    }
    if list.len() > MAX_CHOICES {
        return Err("an enum with too many choices");
    }
    Ok(Some(list))
}

/// What Claude Code hands its `Elicitation` hook on stdin (the fields the popup uses).
#[derive(Clone, Debug, PartialEq)]
pub struct HookInput {
    pub server: String,
    pub message: String,
    /// A form's schema; `None` for a URL to visit.
    pub schema: Option<Value>,
    pub url: Option<String>,
}

impl HookInput {
    /// Reads the hook's input; `None` when it is not an `Elicitation` hook's.
    pub fn parse(text: &str) -> Option<HookInput> {
        let input: Value = serde_json::from_str(text).ok()?;
        if input.get("hook_event_name").and_then(Value::as_str) != Some("Elicitation") {
            return None;
        }
        let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_owned);
        let url_mode = text("mode").as_deref() == Some("url");
        Some(HookInput {
            server: text("mcp_server_name").unwrap_or_default(),
            message: text("message").unwrap_or_default(),
            schema: input.get("requested_schema").filter(|_| !url_mode).cloned(),
            url: text("url").filter(|_| url_mode),
        })
    }
}
