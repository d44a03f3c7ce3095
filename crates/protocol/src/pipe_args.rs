//! The values of a pipe's `k=v,k=v` arguments. Zellij splits them on `,` (and a line break would
//! end the command line's argument), so the command percent-encodes a request id that holds one
//! of these, and the plugin decodes it: an id reaches the plugin and comes back intact, whatever
//! it holds.

/// `value` with `%`, `,`, CR and LF written as `%25`, `%2C`, `%0D` and `%0A`.
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '%' => out.push_str("%25"),
            ',' => out.push_str("%2C"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// `value` with every `%XX` (two hex digits) turned back into its byte; anything else is kept
/// as it is, so an id written by hand without escapes reads as written.
pub fn decode(value: &str) -> String {
    if !value.contains('%') {
        return value.to_owned();
    }
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let escaped = (b == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_id_comes_back_intact() {
        for id in [
            "r1",
            "job=7,q1",
            "a,b,,c",
            "100%",
            "%2C literally",
            "line\nbreak\r\n",
            "ünï,cödé=✓",
            "",
        ] {
            let sent = encode(id);
            assert!(!sent.contains([',', '\n', '\r']), "{sent:?}");
            assert_eq!(decode(&sent), id);
        }
    }

    #[test]
    fn an_id_written_by_hand_reads_as_written() {
        for id in ["r1", "50% off", "%zz", "%", "a%2"] {
            assert_eq!(decode(id), id);
        }
        assert_eq!(decode("job%3D7%2Cq1"), "job=7,q1");
    }
}
