//! The popup's place on the screen: the configured size, no taller than the dialog needs,
//! centred. `instance.rs` places the pane there.

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

    /// The offset that centres a share of the screen (`10%` for `80%`); None for cells, which
    /// cannot be centred without knowing the screen.
    fn centring_offset(self) -> Option<Size> {
        match self {
            Size::Percent(p) => Some(Size::Percent((100 - p.min(100)) / 2)),
            Size::Cells(_) => None,
        }
    }

    /// As a pane's width or height: none for no cells or more than the whole screen, which
    /// Zellij would not take either.
    fn as_extent(self) -> Option<Size> {
        match self {
            Size::Percent(0) | Size::Cells(0) => None,
            Size::Percent(p) if p > 100 => None,
            size => Some(size),
        }
    }
}

/// The popup's configured width and greatest height.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PopupSize {
    pub width: Size,
    pub height: Size,
}

impl PopupSize {
    /// Where the popup goes before Zellij has said how large the screen is: the configured
    /// size, centred when it is a share of the screen. None when that says nothing (a size of
    /// no cells, which cannot be centred).
    pub fn unmeasured_placement(self) -> Option<Placement> {
        let placement = Placement {
            x: self.width.centring_offset(),
            y: self.height.centring_offset(),
            width: self.width.as_extent(),
            height: self.height.as_extent(),
        };
        (placement != Placement::default()).then_some(placement)
    }
}

/// Where a floating pane goes, as Zellij's floating pane coordinates take it: each of its
/// position and size a share of the screen or cells, or None to leave it as it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    pub x: Option<Size>,
    pub y: Option<Size>,
    pub width: Option<Size>,
    pub height: Option<Size>,
}

impl From<Rect> for Placement {
    fn from(rect: Rect) -> Placement {
        Placement {
            x: Some(Size::Cells(rect.x)),
            y: Some(Size::Cells(rect.y)),
            width: Some(Size::Cells(rect.width)),
            height: Some(Size::Cells(rect.height)),
        }
    }
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
/// On a screen narrower than this (a phone's 27 columns), the popup takes the whole width: a
/// share of it would leave the dialog too few columns to draw in.
const NARROW_SCREEN: usize = 40;

/// The popup on a screen of `rows` × `cols`: the configured width (the whole width of a narrow
/// screen); as tall as the dialog
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
    let width = if cols < NARROW_SCREEN {
        cols.max(1)
    } else {
        size.width.cells(cols)
    };
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
    }

    #[test]
    fn before_the_screen_is_known_the_popup_takes_the_configured_size_centred_if_it_can() {
        let size = |width, height| PopupSize { width, height };
        assert_eq!(
            PopupSize::default().unmeasured_placement(),
            Some(Placement {
                x: Some(Size::Percent(10)),
                y: Some(Size::Percent(10)),
                width: Some(Size::Percent(80)),
                height: Some(Size::Percent(80)),
            })
        );
        assert_eq!(
            size(Size::Cells(60), Size::Percent(100)).unmeasured_placement(),
            Some(Placement {
                x: None,
                y: Some(Size::Percent(0)),
                width: Some(Size::Cells(60)),
                height: Some(Size::Percent(100)),
            })
        );
        // No cells is no size, as Zellij has it: the offset alone is left.
        assert_eq!(
            size(Size::Percent(0), Size::Cells(0)).unmeasured_placement(),
            Some(Placement {
                x: Some(Size::Percent(50)),
                ..Placement::default()
            })
        );
        assert_eq!(
            size(Size::Cells(0), Size::Cells(0)).unmeasured_placement(),
            None
        );
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
    fn on_a_phone_the_popup_takes_the_whole_width() {
        // 80% of 27 columns would leave the dialog 19, under the 20 it draws in.
        let rect = popup_rect(PopupSize::default(), (28, 27), |_, _| 10, None);
        assert_eq!((rect.x, rect.width), (0, 27));
        let rect = popup_rect(PopupSize::default(), (28, 40), |_, _| 10, None);
        assert_eq!((rect.x, rect.width), (4, 32));
    }

    #[test]
    fn a_tiny_screen_still_gets_a_popup_inside_it() {
        let rect = popup_rect(PopupSize::default(), (5, 10), |_, _| 50, None);
        assert_eq!(
            rect,
            Rect {
                x: 0,
                y: 0,
                width: 10,
                height: 4
            }
        );
        let rect = popup_rect(PopupSize::default(), (0, 0), |_, _| 50, None);
        assert!(rect.width >= 1 && rect.height >= 1);
    }
}
