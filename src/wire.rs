//! Reads a pipe message the way Zellij hands it to a plugin, in bounded memory.
//!
//! Zellij writes each pipe message to the plugin's stdin as its protobuf encoding spelled out as
//! a JSON list of byte values (`[10,3,…]`), about four characters per byte. zellij-tile reads
//! that whole line into one string, then the list, then decodes the message: for a payload of
//! 1 MiB that peaks near 10 MiB, and Zellij gives a plugin 16 MiB. A bigger payload kills the
//! plugin and every request waiting in it. So this reader decodes the protobuf straight from
//! the digits as they stream in, and keeps a payload only up to a limit: beyond it, just its
//! size, so the caller still gets a clear `payload_too_large`.
//!
//! The message (zellij-utils `plugin_api/pipe_message.proto`): 1 source (enum), 2 cli_source_id,
//! 3 plugin_source_id, 4 name, 5 payload, 6 args (repeated {1 key, 2 value}), 7 is_private
//! (not read: every message to this plugin is answered alike).

use std::collections::BTreeMap;
use std::io::Read;

/// Where the message came from, as the protobuf enum says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireSource {
    Cli,
    Plugin,
    Keybind,
}

/// The payload, as far as it was kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WirePayload {
    Absent,
    Text(String),
    /// Longer than the limit: only its size in bytes.
    TooLarge(usize),
    /// Not UTF-8; the offset of the first bad byte.
    InvalidUtf8(usize),
}

/// One pipe message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireMessage {
    pub source: WireSource,
    /// The CLI pipe's id, when a `zellij pipe` sent it.
    pub cli_source_id: Option<String>,
    /// The sending plugin's id, when a plugin sent it: Zellij writes it, so a plugin cannot
    /// pass for another (the instances of this plugin know each other by it).
    pub plugin_source_id: Option<u32>,
    pub name: String,
    pub payload: WirePayload,
    pub args: BTreeMap<String, String>,
}

/// Where the decoder's bytes come from.
trait ByteSource {
    fn next_byte(&mut self) -> Option<u8>;

    /// Reads up to `len` bytes, appending the first `keep` of them to `out`; how many there
    /// were (fewer than `len` where the input ends).
    fn read_into(&mut self, len: usize, keep: usize, out: &mut Vec<u8>) -> usize {
        for i in 0..len {
            let Some(b) = self.next_byte() else {
                return i;
            };
            if i < keep {
                out.push(b);
            }
        }
        len
    }
}

impl ByteSource for std::slice::Iter<'_, u8> {
    fn next_byte(&mut self) -> Option<u8> {
        self.next().copied()
    }
}

/// Bytes from a JSON list of numbers, read in chunks.
struct ByteList<R> {
    input: R,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    ended: bool,
}

impl<R: Read> ByteList<R> {
    fn new(input: R) -> Self {
        ByteList {
            input,
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            pos: 0,
            len: 0,
            ended: false,
        }
    }

    fn next_char(&mut self) -> Option<u8> {
        if self.pos == self.len {
            if self.ended {
                return None;
            }
            self.len = loop {
                match self.input.read(&mut self.buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break 0,
                }
            };
            self.pos = 0;
            if self.len == 0 {
                self.ended = true;
                return None;
            }
        }
        let c = self.buf.get(self.pos).copied();
        self.pos += 1;
        c
    }

    /// Consumes whatever is left of the line, so the next message starts clean.
    fn finish(&mut self) {
        while !self.ended && self.next_char().is_some() {}
    }
}

impl<R: Read> ByteSource for ByteList<R> {
    /// A payload is most of a message, four characters a byte: its digits are read here in one
    /// loop over the buffer rather than a call or two per character, which in Zellij's
    /// interpreter was most of the time a question took to arrive. Reads exactly what
    /// `next_byte` would, `len` times.
    fn read_into(&mut self, len: usize, keep: usize, out: &mut Vec<u8>) -> usize {
        let mut count = 0;
        let mut value: Option<u32> = None;
        // Bytes gather here and join `out` a batch at a time (a push is a call each, not
        // inlined in the size-optimised build).
        let mut batch = [0u8; 256];
        let mut batched = 0usize;
        while count < len {
            if self.pos >= self.len {
                if self.ended || self.next_char().is_none() {
                    out.extend_from_slice(batch.get(..batched).unwrap_or_default());
                    // The input ended: a number in progress is the last byte.
                    if let Some(v) = value {
                        if count < keep {
                            out.push(v as u8);
                        }
                        count += 1;
                    }
                    return count;
                }
                // `next_char` refilled the buffer and took its first character: step back.
                self.pos -= 1;
            }
            let Some(chars) = self.buf.get(self.pos..self.len) else {
                out.extend_from_slice(batch.get(..batched).unwrap_or_default());
                return count;
            };
            let mut used = 0;
            for &c in chars {
                used += 1;
                match c {
                    b'0'..=b'9' => {
                        value = Some(value.unwrap_or(0).saturating_mul(10) + u32::from(c - b'0'));
                    }
                    b']' | b'\n' => {
                        self.ended = true;
                        out.extend_from_slice(batch.get(..batched).unwrap_or_default());
                        if let Some(v) = value.take() {
                            if count < keep {
                                out.push(v as u8);
                            }
                            count += 1;
                        }
                        self.pos += used;
                        // Nothing more to read: the message ended.
                        return count;
                    }
                    _ => {
                        if let Some(v) = value.take() {
                            if count < keep {
                                if let Some(slot) = batch.get_mut(batched) {
                                    *slot = v as u8;
                                    batched += 1;
                                } else {
                                    out.extend_from_slice(&batch);
                                    if let Some(first) = batch.first_mut() {
                                        *first = v as u8;
                                    }
                                    batched = 1;
                                }
                            }
                            count += 1;
                            if count == len {
                                break;
                            }
                        }
                    }
                }
            }
            self.pos += used;
        }
        out.extend_from_slice(batch.get(..batched).unwrap_or_default());
        count
    }

    /// The next byte of the list, or None at its end (`]`, a line break, or no more input).
    fn next_byte(&mut self) -> Option<u8> {
        let mut value: Option<u32> = None;
        loop {
            match self.next_char() {
                Some(c @ b'0'..=b'9') => {
                    value = Some(value.unwrap_or(0).saturating_mul(10) + u32::from(c - b'0'));
                }
                Some(b']' | b'\n') | None => {
                    self.ended = true;
                    return value.map(|v| v as u8);
                }
                Some(_) => {
                    // `[`, `,` or whitespace: a number, if any, is complete.
                    if let Some(v) = value {
                        return Some(v as u8);
                    }
                }
            }
        }
    }
}

/// Why a message could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError(pub &'static str);

struct Decoder<S> {
    bytes: S,
}

impl<S: ByteSource> Decoder<S> {
    fn byte(&mut self) -> Result<u8, WireError> {
        self.bytes
            .next_byte()
            .ok_or(WireError("the message ends too early"))
    }

    /// A field's tag, or None where the message ends.
    fn tag(&mut self) -> Result<Option<u64>, WireError> {
        let Some(first) = self.bytes.next_byte() else {
            return Ok(None);
        };
        let mut value = u64::from(first & 0x7f);
        let mut b = first;
        let mut shift = 7;
        while b & 0x80 != 0 {
            if shift > 63 {
                return Err(WireError("a tag is too long"));
            }
            b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            shift += 7;
        }
        Ok(Some(value))
    }

    fn varint(&mut self) -> Result<u64, WireError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(WireError("a number is too long"))
    }

    fn length(&mut self) -> Result<usize, WireError> {
        usize::try_from(self.varint()?).map_err(|_| WireError("a length is too large"))
    }

    /// Reads `len` bytes, keeping at most `keep` of them (the rest are read and dropped).
    fn bytes(&mut self, len: usize, keep: usize) -> Result<Vec<u8>, WireError> {
        let mut out = Vec::with_capacity(len.min(keep));
        if self.bytes.read_into(len, keep, &mut out) < len {
            return Err(WireError("the message ends too early"));
        }
        Ok(out)
    }

    fn string(&mut self, len: usize) -> Result<String, WireError> {
        // Names, ids and args are short; a long one is cut rather than kept whole.
        let bytes = self.bytes(len, 64 * 1024)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn skip(&mut self, wire_type: u64) -> Result<(), WireError> {
        match wire_type {
            0 => self.varint().map(|_| ()),
            1 => self.bytes(8, 0).map(|_| ()),
            2 => {
                let len = self.length()?;
                self.bytes(len, 0).map(|_| ())
            }
            5 => self.bytes(4, 0).map(|_| ()),
            _ => Err(WireError("an unknown field type")),
        }
    }
}

/// Decodes one `Arg { key = 1; value = 2; }` from its bytes.
fn arg(bytes: &[u8]) -> Option<(String, String)> {
    let mut d = Decoder {
        bytes: bytes.iter(),
    };
    let (mut key, mut value) = (String::new(), String::new());
    while let Some(tag) = d.tag().ok()? {
        match (tag >> 3, tag & 7) {
            (1, 2) => key = d.length().and_then(|n| d.string(n)).ok()?,
            (2, 2) => value = d.length().and_then(|n| d.string(n)).ok()?,
            (_, t) => d.skip(t).ok()?,
        }
    }
    Some((key, value))
}

/// Reads one message (one line) from `input`, keeping at most `max_payload` payload bytes.
pub fn read_message(input: impl Read, max_payload: usize) -> Result<WireMessage, WireError> {
    let mut d = Decoder {
        bytes: ByteList::new(input),
    };
    let mut msg = WireMessage {
        source: WireSource::Cli,
        cli_source_id: None,
        plugin_source_id: None,
        name: String::new(),
        payload: WirePayload::Absent,
        args: BTreeMap::new(),
    };
    let result = (|| loop {
        let Some(tag) = d.tag()? else {
            return Ok(());
        };
        match (tag >> 3, tag & 7) {
            (1, 0) => {
                msg.source = match d.varint()? {
                    0 => WireSource::Cli,
                    1 => WireSource::Plugin,
                    _ => WireSource::Keybind,
                }
            }
            (2, 2) => {
                let len = d.length()?;
                msg.cli_source_id = Some(d.string(len)?);
            }
            // A uint32 on the wire: anything larger is no plugin's id.
            (3, 0) => msg.plugin_source_id = u32::try_from(d.varint()?).ok(),
            (4, 2) => {
                let len = d.length()?;
                msg.name = d.string(len)?;
            }
            (5, 2) => {
                let len = d.length()?;
                msg.payload = if len > max_payload {
                    d.bytes(len, 0)?;
                    WirePayload::TooLarge(len)
                } else {
                    match String::from_utf8(d.bytes(len, len)?) {
                        Ok(text) => WirePayload::Text(text),
                        Err(e) => WirePayload::InvalidUtf8(e.utf8_error().valid_up_to()),
                    }
                };
            }
            (6, 2) => {
                let len = d.length()?;
                let bytes = d.bytes(len, len.min(128 * 1024))?;
                if let Some((k, v)) = arg(&bytes) {
                    // A request id is percent-encoded where it holds what Zellij splits on.
                    let v = if k == "id" {
                        crate::pipe_args::decode(&v)
                    } else {
                        v
                    };
                    msg.args.insert(k, v);
                }
            }
            (_, t) => d.skip(t)?,
        }
    })();
    d.bytes.finish();
    result.map(|()| msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::protobuf_encode::{field, varint, wire_line};

    fn encode(payload: &[u8]) -> String {
        encode_with_id(payload, b"r7")
    }

    fn encode_with_id(payload: &[u8], id: &[u8]) -> String {
        let mut m = Vec::new();
        varint(1 << 3, &mut m);
        varint(0, &mut m);
        field(2, b"pipe-1", &mut m);
        field(4, b"ask", &mut m);
        field(5, payload, &mut m);
        let mut arg = Vec::new();
        field(1, b"id", &mut arg);
        field(2, id, &mut arg);
        field(6, &arg, &mut m);
        varint(7 << 3, &mut m);
        varint(1, &mut m);
        wire_line(&m)
    }

    #[test]
    fn decodes_every_field() {
        let msg = read_message(encode("{\"q\": 1}".as_bytes()).as_bytes(), 1024).unwrap();
        assert_eq!(msg.source, WireSource::Cli);
        assert_eq!(msg.cli_source_id.as_deref(), Some("pipe-1"));
        assert_eq!(msg.name, "ask");
        assert_eq!(msg.payload, WirePayload::Text("{\"q\": 1}".into()));
        assert_eq!(msg.args.get("id").map(String::as_str), Some("r7"));
    }

    #[test]
    fn a_request_id_is_read_as_the_command_wrote_it() {
        let sent = crate::pipe_args::encode("job=7,q1");
        let msg = read_message(encode_with_id(b"{}", sent.as_bytes()).as_bytes(), 1024).unwrap();
        assert_eq!(msg.args.get("id").map(String::as_str), Some("job=7,q1"));
    }

    /// Input that arrives a few characters per read, as a pipe may hand it over.
    struct Trickle<'a> {
        text: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.step = self.step % 7 + 1;
            let n = self.step.min(buf.len()).min(self.text.len());
            let (now, rest) = self.text.split_at(n);
            buf[..n].copy_from_slice(now);
            self.text = rest;
            Ok(n)
        }
    }

    #[test]
    fn a_payload_read_in_any_pieces_is_read_whole() {
        // Every byte value, and more than the reader's buffer holds.
        let payload: Vec<u8> = (0..150_000u32).map(|i| (i * 7 % 256) as u8).collect();
        let wire = encode(&payload);
        for msg in [
            read_message(wire.as_bytes(), 1 << 20).unwrap(),
            read_message(
                Trickle {
                    text: wire.as_bytes(),
                    step: 0,
                },
                1 << 20,
            )
            .unwrap(),
        ] {
            let bad = std::str::from_utf8(&payload).unwrap_err().valid_up_to();
            assert_eq!(msg.payload, WirePayload::InvalidUtf8(bad));
            assert_eq!(msg.args.get("id").map(String::as_str), Some("r7"));
        }
        let text = "ask-popup 設計 ".repeat(10_000);
        let wire = encode(text.as_bytes());
        let msg = read_message(
            Trickle {
                text: wire.as_bytes(),
                step: 3,
            },
            1 << 20,
        )
        .unwrap();
        assert_eq!(msg.payload, WirePayload::Text(text));
        assert_eq!(msg.args.get("id").map(String::as_str), Some("r7"));
    }

    #[test]
    fn a_message_cut_inside_its_payload_is_an_error() {
        let wire = encode(b"0123456789");
        let cut = format!("{}]\n", &wire[..wire.len() / 2].trim_end_matches(','));
        assert!(read_message(cut.as_bytes(), 1024).is_err());
        let cut = &wire[..wire.len() / 2];
        assert!(read_message(cut.as_bytes(), 1024).is_err());
    }

    #[test]
    fn a_payload_over_the_limit_keeps_only_its_size() {
        let big = vec![b'x'; 5000];
        let msg = read_message(encode(&big).as_bytes(), 4096).unwrap();
        assert_eq!(msg.payload, WirePayload::TooLarge(5000));
        // Fields after the payload are still read.
        assert_eq!(msg.args.get("id").map(String::as_str), Some("r7"));
    }

    #[test]
    fn invalid_utf8_is_reported_not_fatal() {
        let msg = read_message(encode(b"ab\xffcd").as_bytes(), 1024).unwrap();
        assert_eq!(msg.payload, WirePayload::InvalidUtf8(2));
    }

    /// A message another plugin sent: source 1 (plugin), its id in field 3, no CLI id.
    fn from_plugin(id: u64) -> String {
        let mut m = Vec::new();
        varint(1 << 3, &mut m);
        varint(1, &mut m);
        varint(3 << 3, &mut m);
        varint(id, &mut m);
        field(4, b"ask-popup-peer", &mut m);
        field(5, b"{}", &mut m);
        wire_line(&m)
    }

    #[test]
    fn the_sending_plugins_id_is_read() {
        // 300 takes two bytes as a varint; u32::MAX five.
        for id in [0, 7, 300, u64::from(u32::MAX)] {
            let msg = read_message(from_plugin(id).as_bytes(), 1024).unwrap();
            assert_eq!(msg.source, WireSource::Plugin);
            assert_eq!(msg.plugin_source_id, u32::try_from(id).ok(), "{id}");
            assert_eq!(msg.cli_source_id, None);
            assert_eq!(msg.name, "ask-popup-peer");
        }
        // No plugin has an id past a uint32: read as none rather than cut to one.
        let msg = read_message(from_plugin(1 << 32 | 7).as_bytes(), 1024).unwrap();
        assert_eq!(msg.plugin_source_id, None);
        // A CLI's message carries none.
        let msg = read_message(encode(b"{}").as_bytes(), 1024).unwrap();
        assert_eq!(msg.plugin_source_id, None);
    }

    #[test]
    fn no_payload_is_absent() {
        let msg = read_message("[8,0,34,3,97,115,107]\n".as_bytes(), 1024).unwrap();
        assert_eq!(msg.name, "ask");
        assert_eq!(msg.payload, WirePayload::Absent);
    }

    #[test]
    fn a_truncated_message_is_an_error_not_a_panic() {
        // Field 5 (the payload) says 200 bytes follow, and none do.
        assert!(read_message("[42,200]\n".as_bytes(), 1024).is_err());
    }

    #[test]
    fn input_that_is_no_byte_list_reads_as_an_empty_message() {
        // No digits: no bytes, so no fields; nothing to answer, and nothing panics.
        for input in ["garbage", ""] {
            let msg = read_message(input.as_bytes(), 1024).unwrap();
            assert_eq!(msg.name, "");
            assert_eq!(msg.payload, WirePayload::Absent);
            assert_eq!(msg.cli_source_id, None);
        }
    }
}
