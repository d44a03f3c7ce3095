//! The bytes of a message as Zellij writes it to a plugin's stdin: a JSON list of byte values
//! (`[10,3,…]`) on one line, decoded as it is read, a chunk of characters at a time, so that
//! nothing but the bytes a reader keeps takes memory.

use super::Malformed;
use std::io::Read;

/// How many characters are read at a time.
const CHUNK: usize = 64 * 1024;
/// How many bytes are decoded before they join what is kept (see `ByteList::take`).
const BATCH: usize = 256;

/// A message's bytes, read from its JSON list.
pub(super) struct ByteList<R> {
    input: R,
    chars: Box<[u8]>,
    /// The characters read and not yet used: `chars[pos..len]`.
    pos: usize,
    len: usize,
    /// The list has ended (`]`, a line break, or no more input): there are no more bytes.
    list_ended: bool,
    /// Its line has ended too (a line break, or no more input).
    line_ended: bool,
}

impl<R: Read> ByteList<R> {
    pub(super) fn new(input: R) -> Self {
        ByteList {
            input,
            chars: vec![0; CHUNK].into_boxed_slice(),
            pos: 0,
            len: 0,
            list_ended: false,
            line_ended: false,
        }
    }

    /// A varint, or None where the list ends before it begins.
    pub(super) fn varint_or_end(&mut self) -> Result<Option<u64>, Malformed> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(b) = self.next_byte() else {
                return if shift == 0 { Ok(None) } else { Err(Malformed) };
            };
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(Some(value));
            }
        }
        // Longer than ten bytes.
        Err(Malformed)
    }

    pub(super) fn varint(&mut self) -> Result<u64, Malformed> {
        self.varint_or_end()?.ok_or(Malformed)
    }

    /// A length-delimited field's length.
    pub(super) fn length(&mut self) -> Result<usize, Malformed> {
        usize::try_from(self.varint()?).map_err(|_| Malformed)
    }

    /// Reads `len` bytes onto the end of `out`.
    pub(super) fn read(&mut self, len: usize, out: &mut Vec<u8>) -> Result<(), Malformed> {
        self.take(len, Some(out))
    }

    /// Reads the rest of the list onto the end of `out`.
    pub(super) fn read_rest(&mut self, out: &mut Vec<u8>) {
        let mut batch = [0u8; BATCH];
        loop {
            let got = self.decode(&mut batch);
            out.extend_from_slice(batch.get(..got).unwrap_or_default());
            if got < batch.len() {
                return;
            }
        }
    }

    /// Reads `len` bytes and drops them.
    pub(super) fn skip(&mut self, len: usize) -> Result<(), Malformed> {
        self.take(len, None)
    }

    /// Reads what is left of the line, through its line break, so that the next message read
    /// from the same input starts at its own first character.
    pub(super) fn finish(&mut self) {
        while !self.line_ended && (self.pos < self.len || self.refill()) {
            let chars = self.chars.get(self.pos..self.len).unwrap_or_default();
            match chars.iter().position(|&c| c == b'\n') {
                Some(at) => {
                    self.pos += at + 1;
                    self.line_ended = true;
                }
                None => self.pos = self.len,
            }
        }
    }

    fn next_byte(&mut self) -> Option<u8> {
        let mut byte = [0u8];
        let decoded = self.decode(&mut byte);
        let [b] = byte;
        (decoded == 1).then_some(b)
    }

    /// Reads `len` bytes, appending them to `out` when there is one. The bytes are decoded a
    /// batch at a time and join `out` a batch at a time: a push per byte is a call each in the
    /// size-optimised build, and a payload is most of a message.
    fn take(&mut self, mut len: usize, mut out: Option<&mut Vec<u8>>) -> Result<(), Malformed> {
        let mut batch = [0u8; BATCH];
        while len > 0 {
            let want = batch.get_mut(..len.min(BATCH)).unwrap_or_default();
            let got = self.decode(want);
            if let Some(out) = out.as_deref_mut() {
                out.extend_from_slice(want.get(..got).unwrap_or_default());
            }
            if got < want.len() {
                // The list ended first.
                return Err(Malformed);
            }
            len -= got;
        }
        Ok(())
    }

    /// Fills `out` with the next bytes of the list; how many there were (fewer only where the
    /// list ends).
    fn decode(&mut self, out: &mut [u8]) -> usize {
        let mut filled = 0;
        // The digits of a number cut off at the end of the characters read so far.
        let mut number = None;
        while filled < out.len() && !self.list_ended {
            if self.pos == self.len && !self.refill() {
                // The input ended without a `]`: a number in progress is the last byte.
                if let (Some(n), Some(slot)) = (number, out.get_mut(filled)) {
                    *slot = n as u8;
                    filled += 1;
                }
                break;
            }
            let chars = self.chars.get(self.pos..self.len).unwrap_or_default();
            let rest = out.get_mut(filled..).unwrap_or_default();
            let scan = scan(chars, rest, &mut number);
            self.pos += scan.used;
            filled += scan.bytes;
            if let Some(end) = scan.end {
                self.list_ended = true;
                self.line_ended = end == b'\n';
            }
        }
        filled
    }

    /// Reads the next characters once those read are used up; false where the input has ended.
    fn refill(&mut self) -> bool {
        let read = loop {
            match self.input.read(&mut self.chars) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break 0,
            }
        };
        self.pos = 0;
        self.len = read.min(self.chars.len());
        if self.len == 0 {
            self.list_ended = true;
            self.line_ended = true;
        }
        self.len > 0
    }
}

/// What `scan` made of a run of characters.
struct Scan {
    /// How many characters it used.
    used: usize,
    /// How many bytes it decoded.
    bytes: usize,
    /// The character that ended the list (`]` or a line break), if one did.
    end: Option<u8>,
}

/// Decodes the numbers in `chars` into `out` until `out` is full, the list ends, or the
/// characters run out. `number` carries the digits of a number the characters cut off into the
/// next run. Anything but a digit, `]` and a line break (`[`, `,`, whitespace) separates
/// numbers, and each number is a byte: its low byte, should it be larger.
///
/// One loop over the characters, rather than a call or two for each, which in Zellij's
/// interpreter was most of the time a question took to arrive.
fn scan(chars: &[u8], out: &mut [u8], number: &mut Option<u32>) -> Scan {
    let mut bytes = 0;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_digit() {
            let n = number.unwrap_or(0).saturating_mul(10);
            *number = Some(n.saturating_add(u32::from(c - b'0')));
            continue;
        }
        if let Some(n) = number.take() {
            if let Some(slot) = out.get_mut(bytes) {
                *slot = n as u8;
            }
            bytes += 1;
        }
        let end = matches!(c, b']' | b'\n').then_some(c);
        if end.is_some() || bytes == out.len() {
            return Scan {
                used: i + 1,
                bytes,
                end,
            };
        }
    }
    Scan {
        used: chars.len(),
        bytes,
        end: None,
    }
}
