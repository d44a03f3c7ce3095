//! The popup's place on the screen: the configured size, no taller than the dialog needs,
//! centred. `main.rs` only applies the rectangle.

/// A configured popup dimension: a share of the screen (`80%`) or a number of cells (`30`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    Percent(usize),
    Cells(usize),
}

impl Default for Size {
    fn default() -> Self {
        Size::Percent(80)
    }
}

impl Size {
    /// `80%` or `30`; None for anything else.
    pub fn parse(text: &str) -> Option<Size> {
        let text = text.trim();
        match text.strip_suffix('%') {
            Some(percent) => percent
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|p| *p <= 100)
                .map(Size::Percent),
            None => text.parse::<usize>().ok().map(Size::Cells),
        }
    }

    /// In cells of a screen dimension of `total` cells, at least 1 and at most `total`.
    pub fn cells(self, total: usize) -> usize {
        let cells = match self {
            Size::Percent(p) => total * p.min(100) / 100,
            Size::Cells(n) => n,
        };
        cells.clamp(1, total.max(1))
    }

    /// As Zellij's floating pane coordinates take it (`80%` or `30`).
    pub fn to_coordinate(self) -> String {
        match self {
            Size::Percent(p) => format!("{p}%"),
            Size::Cells(n) => n.to_string(),
        }
    }

    /// The offset that centres a share of the screen (`10%` for `80%`); None for cells, which
    /// cannot be centred without knowing the screen.
    pub fn centring_offset(self) -> Option<String> {
        match self {
            Size::Percent(p) => Some(format!("{}%", (100 - p.min(100)) / 2)),
            Size::Cells(_) => None,
        }
    }
}

/// The popup's configured width and greatest height.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PopupSize {
    pub width: Size,
    pub height: Size,
}

/// Where the popup goes, in screen cells (its frame included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: usize,
    pub y: usize,
    pub width: usize,
    pub height: usize,
}

/// The fewest rows the popup takes when the screen has them.
const MIN_HEIGHT: usize = 8;

/// The popup on a screen of `rows` × `cols`: the configured width; as tall as the dialog
/// needs (`natural_height` of its content at a given content width, plus the frame; it is
/// also told the most content rows the popup can have, beyond which it need not count), never
/// shorter than it is now (`current_height`: while a request is shown the popup only grows, so
/// it does not jump about), at most the configured height; centred.
pub fn popup_rect(
    size: PopupSize,
    (rows, cols): (usize, usize),
    natural_height: impl FnOnce(usize, usize) -> usize,
    current_height: Option<usize>,
) -> Rect {
    let width = size.width.cells(cols);
    let max_height = size.height.cells(rows);
    // The pane's frame takes a row or column on each side.
    let needed =
        natural_height(width.saturating_sub(2), max_height.saturating_sub(2)).saturating_add(2);
    let height = needed
        .max(current_height.unwrap_or(0))
        .clamp(MIN_HEIGHT.min(max_height), max_height);
    Rect {
        x: cols.saturating_sub(width) / 2,
        y: rows.saturating_sub(height) / 2,
        width,
        height,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_shares_or_cells() {
        assert_eq!(Size::parse("80%"), Some(Size::Percent(80)));
        assert_eq!(Size::parse(" 30 "), Some(Size::Cells(30)));
        assert_eq!(Size::parse("120%"), None);
        assert_eq!(Size::parse("big"), None);
        assert_eq!(Size::Percent(80).cells(100), 80);
        assert_eq!(Size::Cells(300).cells(100), 100);
        assert_eq!(Size::Percent(0).cells(100), 1);
        assert_eq!(Size::Percent(80).centring_offset().as_deref(), Some("10%"));
        assert_eq!(Size::Cells(30).centring_offset(), None);
    }

    #[test]
    fn the_popup_fits_the_dialog_within_the_configured_size() {
        let size = PopupSize::default(); // 80% × 80%
        let screen = (50, 100); // rows, cols: at most 80 × 40
                                // (natural content height, current height) → (width, height)
        let cases = [
            (10, None, (80, 12)),     // content + frame
            (2, None, (80, 8)),       // never less than 8 rows
            (100, None, (80, 40)),    // never more than configured
            (10, Some(20), (80, 20)), // only grows while shown
            (30, Some(20), (80, 32)), // grows to fit
            (30, Some(45), (80, 40)), // a current height over the maximum is cut
        ];
        for (natural, current, (width, height)) in cases {
            let rect = popup_rect(size, screen, |_, _| natural, current);
            assert_eq!(
                (rect.width, rect.height),
                (width, height),
                "{natural} {current:?}"
            );
            assert_eq!(rect.x, (100 - width) / 2);
            assert_eq!(rect.y, (50 - height) / 2);
        }
    }

    #[test]
    fn the_dialog_is_measured_at_the_content_width_up_to_the_content_height() {
        let size = PopupSize {
            width: Size::Cells(60),
            height: Size::Cells(20),
        };
        let mut measured = (0, 0);
        popup_rect(
            size,
            (40, 200),
            |cols, rows| {
                measured = (cols, rows);
                5
            },
            None,
        );
        assert_eq!(measured, (58, 18));
    }

    #[test]
    fn a_tiny_screen_still_gets_a_popup_inside_it() {
        let rect = popup_rect(PopupSize::default(), (5, 10), |_, _| 50, None);
        assert_eq!(
            rect,
            Rect {
                x: 1,
                y: 0,
                width: 8,
                height: 4
            }
        );
        let rect = popup_rect(PopupSize::default(), (0, 0), |_, _| 50, None);
        assert!(rect.width >= 1 && rect.height >= 1);
    }
}
