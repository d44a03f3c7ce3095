//! A number as the person types it and as they read it, through serde_json's own reading and
//! writing of numbers, which the plugin carries anyway: the standard library's `f64` parser
//! (its exact algorithm and its table of powers of five) and its float formatting would add
//! about 20 KB to the plugin for one field's text.

use serde_json::{Number, Value};

/// The number in `typed` (surrounding spaces aside), finite, or `None`. It accepts what Rust's
/// `f64` parser accepts for a finite number: a sign, leading zeros, `.5`, `5.` and an exponent
/// (`1e3`, `2.5E-2`); never `inf`, `NaN`, a hex or a `_`. A number too large for an `f64` is no
/// number; one too small for it is 0.
pub fn read(typed: &str) -> Option<f64> {
    let text = typed.trim().as_bytes();
    let (negative, text) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let digits = |t: &[u8]| t.iter().take_while(|b| b.is_ascii_digit()).count();
    let whole_len = digits(text);
    let (whole, rest) = text.split_at(whole_len);
    let (fraction, rest) = match rest.split_first() {
        Some((b'.', after)) => after.split_at(digits(after)),
        _ => (&rest[..0], rest),
    };
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let exponent = match rest.split_first() {
        None => None,
        Some((b'e' | b'E', after)) => {
            let signed = usize::from(matches!(after.first(), Some(b'-' | b'+')));
            let exp_digits = digits(&after[signed..]);
            if exp_digits == 0 || signed + exp_digits != after.len() {
                return None;
            }
            Some(after)
        }
        Some(_) => return None,
    };
    // The same number as JSON writes it: no `+`, no leading zeros, a digit on each side of
    // the point.
    let mut json = String::with_capacity(text.len() + 3);
    if negative {
        json.push('-');
    }
    let whole = &whole[whole.iter().take_while(|b| **b == b'0').count()..];
    json.push_str(if whole.is_empty() { "0" } else { ascii(whole) });
    if !fraction.is_empty() {
        json.push('.');
        json.push_str(ascii(fraction));
    }
    if let Some(exponent) = exponent {
        json.push('e');
        json.push_str(ascii(exponent));
    }
    serde_json::from_str::<f64>(&json)
        .ok()
        .filter(|n| n.is_finite())
}

/// A number as the person reads it: `5`, not `5.0`; `2.5`; `1e-7`.
pub fn text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 9e15 {
        (n as i64).to_string()
    } else {
        Number::from_f64(n).map_or_else(|| "?".to_owned(), |n| Value::Number(n).to_string())
    }
}

/// Bytes checked to be ASCII digits and signs.
fn ascii(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{read, text};

    #[test]
    fn reads_what_rusts_parser_reads_for_a_finite_number() {
        for typed in [
            "0",
            "3",
            "-3",
            "+3",
            " 42 ",
            "007",
            "3.5",
            "-0.25",
            ".5",
            "-.5",
            "5.",
            "5.e3",
            "1e3",
            "2.5E-2",
            "1e+2",
            "0.1",
            "123456789.125",
            "1e-400",
            "0000.0001",
            "9007199254740993",
        ] {
            let want = typed.trim().parse::<f64>().ok();
            assert_eq!(read(typed), want, "{typed:?}");
        }
    }

    #[test]
    fn refuses_what_is_no_finite_number() {
        for typed in [
            "", " ", ".", "-", "+", "e3", ".e3", "1e", "1e+", "1.2.3", "1,5", "0x10", "1_000",
            "inf", "-inf", "NaN", "infinity", "1e400", "3 4", "--3", "3-", "abc", "١٢",
        ] {
            assert_eq!(read(typed), None, "{typed:?}");
        }
    }

    #[test]
    fn writes_a_whole_number_without_a_point() {
        assert_eq!(text(5.0), "5");
        assert_eq!(text(-12.0), "-12");
        assert_eq!(text(2.5), "2.5");
        assert_eq!(text(0.1), "0.1");
        assert_eq!(text(1e20).parse::<f64>(), Ok(1e20));
        assert_eq!(text(-1e-7).parse::<f64>(), Ok(-1e-7));
    }
}
