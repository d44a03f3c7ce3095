//! Colours: one theme maps every role to a colour. The plugin fills it from Zellij's palette.

use super::style::{Role, Style};

/// A terminal colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    /// The terminal's own foreground or background.
    Default,
    /// One of the 256 indexed colours.
    Indexed(u8),
    Rgb(u8, u8, u8),
}

/// The colour of every role, plus the selection background.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theme {
    pub text: Color,
    pub muted: Color,
    pub dim: Color,
    pub accent: Color,
    pub success: Color,
    pub warning: Color,
    pub selected_fg: Color,
    pub selected_bg: Color,
    pub code: Color,
    pub heading: Color,
    pub link: Color,
    pub quote: Color,
}

impl Default for Theme {
    /// Works on any terminal: the 16 standard colours.
    fn default() -> Self {
        Theme {
            text: Color::Default,
            muted: Color::Indexed(8),
            dim: Color::Indexed(8),
            accent: Color::Indexed(6),
            success: Color::Indexed(2),
            warning: Color::Indexed(3),
            selected_fg: Color::Indexed(0),
            selected_bg: Color::Indexed(6),
            code: Color::Indexed(5),
            heading: Color::Indexed(4),
            link: Color::Indexed(4),
            quote: Color::Indexed(8),
        }
    }
}

impl Theme {
    fn fg(&self, role: Role) -> Color {
        match role {
            Role::Text => self.text,
            Role::Muted => self.muted,
            Role::Dim => self.dim,
            Role::Accent => self.accent,
            Role::Success => self.success,
            Role::Warning => self.warning,
            Role::Selected => self.selected_fg,
            Role::Code => self.code,
            Role::Heading => self.heading,
            Role::Link => self.link,
            Role::Quote => self.quote,
        }
    }

    /// Writes the SGR sequence that starts `style` (after a reset).
    pub fn write_sgr(&self, out: &mut String, style: Style) {
        out.push_str("\u{1b}[0");
        if style.bold {
            out.push_str(";1");
        }
        if style.role == Role::Dim {
            out.push_str(";2");
        }
        if style.italic {
            out.push_str(";3");
        }
        if style.underline {
            out.push_str(";4");
        }
        if style.reverse {
            out.push_str(";7");
        }
        write_color(out, self.fg(style.role), 30);
        if style.role == Role::Selected {
            write_color(out, self.selected_bg, 40);
        }
        out.push('m');
    }
}

/// `base` is 30 for the foreground, 40 for the background.
fn write_color(out: &mut String, color: Color, base: u8) {
    match color {
        Color::Default => {}
        Color::Indexed(i) if i < 8 => push_param(out, base + i),
        Color::Indexed(i) if i < 16 => push_param(out, base + 60 + (i - 8)),
        Color::Indexed(i) => {
            push_param(out, base + 8);
            out.push_str(";5");
            push_param(out, i);
        }
        Color::Rgb(r, g, b) => {
            push_param(out, base + 8);
            out.push_str(";2");
            push_param(out, r);
            push_param(out, g);
            push_param(out, b);
        }
    }
}

/// `;N`, without the formatting machinery: this runs for every span of every frame.
fn push_param(out: &mut String, n: u8) {
    out.push(';');
    if n >= 100 {
        out.push(char::from(b'0' + n / 100));
    }
    if n >= 10 {
        out.push(char::from(b'0' + (n / 10) % 10));
    }
    out.push(char::from(b'0' + n % 10));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgr_sequences() {
        let theme = Theme {
            accent: Color::Rgb(1, 22, 233),
            muted: Color::Indexed(8),
            code: Color::Indexed(200),
            ..Theme::default()
        };
        let sgr = |style| {
            let mut out = String::new();
            theme.write_sgr(&mut out, style);
            out
        };
        assert_eq!(
            sgr(Style::new(Role::Accent).bold()),
            "\u{1b}[0;1;38;2;1;22;233m"
        );
        assert_eq!(sgr(Style::new(Role::Muted)), "\u{1b}[0;90m");
        assert_eq!(sgr(Style::new(Role::Code).italic()), "\u{1b}[0;3;38;5;200m");
        assert_eq!(sgr(Style::new(Role::Text)), "\u{1b}[0m");
        assert_eq!(sgr(Style::new(Role::Selected)), "\u{1b}[0;30;46m");
    }
}
