//! A small multi-line text editor: the free-form answer and the notes are typed into one.

/// Editable text with a cursor. The cursor is a byte offset that always sits on a char boundary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Editor {
    text: String,
    cursor: usize,
}

/// What a key did to the editor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    Changed,
    Moved,
    Nothing,
}

impl Editor {
    pub fn new() -> Self {
        Editor::default()
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The same editor with every character shown as `•` (a secret's field), the cursor
    /// where it was.
    pub fn masked(&self) -> Editor {
        let before = self.text[..self.cursor].chars().count();
        let text: String = self.text.chars().map(|_| '•').collect();
        Editor {
            cursor: '•'.len_utf8() * before,
            text,
        }
    }

    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// Inserts text at the cursor. CRLF and CR become LF, tabs stay, every other control
    /// character is dropped: pasted text can carry anything.
    pub fn insert(&mut self, s: &str) -> Edit {
        let mut clean = String::with_capacity(s.len());
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' => {
                    if chars.peek() != Some(&'\n') {
                        clean.push('\n');
                    }
                }
                '\n' | '\t' => clean.push(c),
                c if c.is_control() => {}
                c => clean.push(c),
            }
        }
        if clean.is_empty() {
            return Edit::Nothing;
        }
        self.text.insert_str(self.cursor, &clean);
        self.cursor += clean.len();
        Edit::Changed
    }

    pub fn insert_char(&mut self, c: char) -> Edit {
        let mut buf = [0u8; 4];
        self.insert(c.encode_utf8(&mut buf))
    }

    pub fn backspace(&mut self) -> Edit {
        match self.text[..self.cursor].chars().next_back() {
            Some(c) => {
                self.cursor -= c.len_utf8();
                self.text.remove(self.cursor);
                Edit::Changed
            }
            None => Edit::Nothing,
        }
    }

    pub fn delete(&mut self) -> Edit {
        if self.cursor < self.text.len() {
            self.text.remove(self.cursor);
            Edit::Changed
        } else {
            Edit::Nothing
        }
    }

    pub fn left(&mut self) -> Edit {
        match self.text[..self.cursor].chars().next_back() {
            Some(c) => {
                self.cursor -= c.len_utf8();
                Edit::Moved
            }
            None => Edit::Nothing,
        }
    }

    pub fn right(&mut self) -> Edit {
        match self.text[self.cursor..].chars().next() {
            Some(c) => {
                self.cursor += c.len_utf8();
                Edit::Moved
            }
            None => Edit::Nothing,
        }
    }

    /// To the start of the current line.
    pub fn home(&mut self) -> Edit {
        let start = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
        self.move_to(start)
    }

    /// To the end of the current line.
    pub fn end(&mut self) -> Edit {
        let end = self.text[self.cursor..]
            .find('\n')
            .map_or(self.text.len(), |i| self.cursor + i);
        self.move_to(end)
    }

    pub fn clear(&mut self) -> Edit {
        if self.text.is_empty() {
            return Edit::Nothing;
        }
        self.text.clear();
        self.cursor = 0;
        Edit::Changed
    }

    fn move_to(&mut self, at: usize) -> Edit {
        if at == self.cursor {
            Edit::Nothing
        } else {
            self.cursor = at;
            Edit::Moved
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(s: &str) -> Editor {
        let mut e = Editor::new();
        e.insert(s);
        e
    }

    #[test]
    fn typing_and_deleting_multibyte_text() {
        let mut e = typed("añ数");
        assert_eq!(e.backspace(), Edit::Changed);
        assert_eq!(e.text(), "añ");
        e.left();
        assert_eq!(e.cursor(), 1);
        e.delete();
        assert_eq!(e.text(), "a");
        e.home();
        e.insert_char('数');
        assert_eq!(e.text(), "数a");
        assert_eq!(e.cursor(), '数'.len_utf8());
        assert_eq!(e.backspace(), Edit::Changed);
        assert_eq!(e.backspace(), Edit::Nothing);
        assert_eq!(e.text(), "a");
    }

    #[test]
    fn home_and_end_work_on_the_current_line() {
        let mut e = typed("one\ntwo");
        e.home();
        assert_eq!(e.cursor(), 4);
        e.left();
        e.home();
        assert_eq!(e.cursor(), 0);
        e.end();
        assert_eq!(e.cursor(), 3);
    }

    #[test]
    fn pasted_control_characters_are_dropped_and_newlines_kept() {
        let e = typed("a\x1b[31mb\r\nc\rd\x07\te");
        assert_eq!(e.text(), "a[31mb\nc\nd\te");
    }

    #[test]
    fn clear_empties_the_text() {
        let mut e = typed("abc");
        assert_eq!(e.clear(), Edit::Changed);
        assert_eq!((e.text(), e.cursor()), ("", 0));
        assert_eq!(e.clear(), Edit::Nothing);
    }
}
