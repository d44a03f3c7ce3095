//! Reads what Zellij writes to the plugin's stdin: a pipe message in bounded memory
//! (`read_message`), and any other message whole (`read_bytes`: an event, the plugin's options,
//! its ids).
//!
//! Zellij writes each pipe message to the plugin's stdin as its protobuf encoding spelled out as
//! a JSON list of byte values (`[10,3,…]`), about four characters per byte. zellij-tile reads
//! that whole line into one string, then the list, then decodes the message: for a payload of
//! 1 MiB that peaks near 10 MiB, and Zellij gives a plugin 16 MiB. A bigger payload kills the
//! plugin and every request waiting in it. So this reader decodes the list as it streams in
//! (`byte_list`) and takes the message's fields apart there: the payload (field 5) is kept only
//! up to a limit, beyond it just its size, so the caller still gets a clear
//! `payload_too_large`; the other fields (zellij-utils `plugin_api/pipe_message.proto`: the
//! source, the CLI's or the plugin's id, the name, the args), each short, are kept as they were
//! sent and decoded by prost (`zellij_proto::PipeMessage`).

mod byte_list;

use crate::zellij_proto;
use byte_list::ByteList;
use prost::encoding::encode_varint;
use prost::Message;
use std::collections::BTreeMap;
use std::io::Read;

pub use crate::zellij_proto::Malformed;

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

/// Reads one message (one line) from `input`, keeping at most `max_payload` payload bytes. The
/// whole line is read, through its line break, whether the message could be read or not.
pub fn read_message(input: impl Read, max_payload: usize) -> Result<WireMessage, Malformed> {
    let mut list = ByteList::new(input);
    let read = read_fields(&mut list, max_payload);
    list.finish();
    let (payload, fields) = read?;
    let fields = zellij_proto::PipeMessage::decode(fields.as_slice())?;
    let mut args = BTreeMap::new();
    for arg in fields.args {
        // A request id is percent-encoded where it holds what Zellij splits on.
        let value = if arg.key == "id" {
            ask_popup_protocol::pipe_args::decode(&arg.value)
        } else {
            arg.value
        };
        args.insert(arg.key, value);
    }
    Ok(WireMessage {
        source: match fields.source {
            0 => WireSource::Cli,
            1 => WireSource::Plugin,
            _ => WireSource::Keybind,
        },
        cli_source_id: fields.cli_source_id,
        plugin_source_id: fields
            .plugin_source_id
            .and_then(|id| u32::try_from(id).ok()),
        name: fields.name,
        payload,
        args,
    })
}

/// The bytes of one message other than a pipe message (an event, the plugin's options, its
/// ids), read from its line, through its line break; what a line that is no list of bytes holds
/// is read as best it can be, and left to the message's decoding to refuse.
///
/// Rather than zellij-tile's `object_from_stdin`, which parses the line with serde_json and
/// wraps its errors in anyhow's, whose capture and printing of backtraces (std's symbol
/// demangling with it) were about 49 KB of the plugin.
pub fn read_bytes(input: impl Read) -> Vec<u8> {
    let mut list = ByteList::new(input);
    let mut bytes = Vec::new();
    list.read_rest(&mut bytes);
    list.finish();
    bytes
}

/// The payload's key: field 5, length-delimited.
const PAYLOAD_KEY: u64 = 5 << 3 | 2;
/// The longest field besides the payload that is kept; a longer one is read and dropped. Names,
/// ids and arguments are short (a CLI's `--args` are one command-line argument, at most 128 KiB
/// on Linux).
const FIELD_LIMIT: usize = 128 * 1024;

/// Reads the message's fields: the payload as far as `max_payload` allows, and every other
/// field, as it was sent, for prost to decode.
fn read_fields(
    list: &mut ByteList<impl Read>,
    max_payload: usize,
) -> Result<(WirePayload, Vec<u8>), Malformed> {
    let mut payload = WirePayload::Absent;
    let mut fields = Vec::new();
    while let Some(key) = list.varint_or_end()? {
        if key == PAYLOAD_KEY {
            let len = list.length()?;
            payload = read_payload(list, len, max_payload)?;
        } else {
            copy_field(list, key, &mut fields)?;
        }
    }
    Ok((payload, fields))
}

/// The payload, kept when it is within `max_payload`; beyond it, read and dropped, only its
/// size kept, so the caller still gets a clear `payload_too_large`.
fn read_payload(
    list: &mut ByteList<impl Read>,
    len: usize,
    max_payload: usize,
) -> Result<WirePayload, Malformed> {
    if len > max_payload {
        list.skip(len)?;
        return Ok(WirePayload::TooLarge(len));
    }
    let mut bytes = Vec::with_capacity(len);
    list.read(len, &mut bytes)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => WirePayload::Text(text),
        Err(e) => WirePayload::InvalidUtf8(e.utf8_error().valid_up_to()),
    })
}

/// Copies the field whose key was just read onto `fields`, encoded again; a length-delimited
/// one longer than `FIELD_LIMIT` is read and dropped.
fn copy_field(
    list: &mut ByteList<impl Read>,
    key: u64,
    fields: &mut Vec<u8>,
) -> Result<(), Malformed> {
    match key & 7 {
        0 => {
            let value = list.varint()?;
            encode_varint(key, fields);
            encode_varint(value, fields);
        }
        2 => {
            let len = list.length()?;
            if len > FIELD_LIMIT {
                return list.skip(len);
            }
            encode_varint(key, fields);
            encode_varint(len as u64, fields);
            list.read(len, fields)?;
        }
        wire_type @ (1 | 5) => {
            encode_varint(key, fields);
            list.read(if wire_type == 1 { 8 } else { 4 }, fields)?;
        }
        // Groups, and wire types protobuf does not have.
        _ => return Err(Malformed),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::protobuf_encode::{field, varint, wire_line};

    /// A CLI's message with `payload` and the arg `id=r7`.
    fn encode(payload: &[u8]) -> String {
        let mut m = Vec::new();
        varint(1 << 3, &mut m);
        varint(0, &mut m);
        field(2, b"pipe-1", &mut m);
        field(4, b"ask", &mut m);
        field(5, payload, &mut m);
        let mut arg = Vec::new();
        field(1, b"id", &mut arg);
        field(2, b"r7", &mut arg);
        field(6, &arg, &mut m);
        varint(7 << 3, &mut m);
        varint(1, &mut m);
        wire_line(&m)
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

    /// A message another plugin sent: source 1 (plugin), its id in field 3, no CLI id. (Messages
    /// as Zellij encodes them are read in `tests/zellij_protocol.rs`, against zellij-utils.)
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
    fn a_plugin_id_past_a_uint32_is_none() {
        // No plugin has one (Zellij's ids are a uint32): read as none rather than cut to one.
        let msg = read_message(from_plugin(1 << 32 | 7).as_bytes(), 1024).unwrap();
        assert_eq!(msg.source, WireSource::Plugin);
        assert_eq!(msg.plugin_source_id, None);
        assert_eq!(msg.name, "ask-popup-peer");
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

    /// Input handed over in the pieces given, one per read.
    struct Pieces<'a>(Vec<&'a [u8]>);

    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some(piece) = self.0.first_mut() else {
                return Ok(0);
            };
            let n = piece.len().min(buf.len());
            buf[..n].copy_from_slice(&piece[..n]);
            *piece = &piece[n..];
            if piece.is_empty() {
                self.0.remove(0);
            }
            Ok(n)
        }
    }

    #[test]
    fn the_next_message_starts_after_the_line_break() {
        // Zellij ends each line with `\r\n` and writes the next message once the plugin has
        // read this one. Here a read ends right at the list's `]`, so the line break is left for
        // another read, which must not be left for the next message.
        for first in ["[8,0,34,3,97,115,107]", "[42,200]"] {
            let mut input = Pieces(vec![first.as_bytes(), b"\r\n"]);
            let read = read_message(&mut input, 1024);
            assert_eq!(read.is_ok(), first.starts_with("[8"), "{first}");
            input.0.push(b"[8,0,34,3,102,111,111]\r\n");
            assert_eq!(read_message(&mut input, 1024).unwrap().name, "foo");
        }
    }

    #[test]
    fn a_messages_bytes_are_read_whole_in_any_pieces() {
        // Every byte value, and more than the reader's buffer holds.
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 256) as u8).collect();
        let line = wire_line(&bytes).replace('\n', "\r\n");
        assert_eq!(read_bytes(line.as_bytes()), bytes);
        let trickle = Trickle {
            text: line.as_bytes(),
            step: 0,
        };
        assert_eq!(read_bytes(trickle), bytes);
        assert_eq!(read_bytes("[]\r\n".as_bytes()), b"");
    }

    #[test]
    fn after_a_messages_bytes_the_next_message_starts_after_the_line_break() {
        let mut input = Pieces(vec![b"[8,3]", b"\r\n"]);
        assert_eq!(read_bytes(&mut input), [8, 3]);
        input.0.push(b"[1,2]\r\n");
        assert_eq!(read_bytes(&mut input), [1, 2]);
    }

    #[test]
    fn a_line_that_is_no_byte_list_is_read_as_best_it_can_be() {
        // Left to the message's decoding to refuse; nothing panics.
        for (line, bytes) in [
            ("garbage\n", &[][..]),
            ("", &[]),
            ("[1,2", &[1, 2]),
            ("[1,300,3]\n", &[1, 44, 3]),
        ] {
            assert_eq!(read_bytes(line.as_bytes()), bytes, "{line:?}");
        }
    }

    #[test]
    fn a_field_besides_the_payload_longer_than_its_limit_is_dropped() {
        let mut m = Vec::new();
        field(4, b"ask", &mut m);
        for (key, value) in [("agent", "a".repeat(FIELD_LIMIT)), ("id", "r1".to_owned())] {
            let mut arg = Vec::new();
            field(1, key.as_bytes(), &mut arg);
            field(2, value.as_bytes(), &mut arg);
            field(6, &arg, &mut m);
        }
        let msg = read_message(wire_line(&m).as_bytes(), 1024).unwrap();
        assert_eq!(msg.name, "ask");
        assert_eq!(msg.args.get("agent"), None);
        assert_eq!(msg.args.get("id").map(String::as_str), Some("r1"));
    }
}
