//! Protobuf's encoding, the little the tests and the first-frame example need to write messages
//! as Zellij sends them (its events, its pipe messages), for the readers to read back.
#![allow(dead_code)]

/// `v` as a varint.
pub fn varint(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Field `n` holding `bytes` (length-delimited).
pub fn field(n: u64, bytes: &[u8], out: &mut Vec<u8>) {
    varint(n << 3 | 2, out);
    varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

/// A message's encoding as Zellij's wire carries it to a plugin: its bytes as a JSON list, one
/// line.
pub fn wire_line(message: &[u8]) -> String {
    let list: Vec<String> = message.iter().map(|b| b.to_string()).collect();
    format!("[{}]\n", list.join(","))
}
