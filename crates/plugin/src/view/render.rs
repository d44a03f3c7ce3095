//! Lays the dialog out for a pane size: banner and tab bar above, the question tab or the
//! review in the middle, cut to the pane, and the footer below.
//!
//! A pane narrower than [`COMPACT_WIDTH`] (a phone's) gets the compact layout: the same one
//! column, but what would be cut at the right wraps instead (see `fit`): the banner, the tab
//! bar (all its tabs on rows), the footer (two lines of whole hints), headers and summaries.
//!
//! Everything that depends only on the payload and a width (wrapped question text, option
//! rows, rendered markdown) is computed once and kept in a [`ViewCache`]; a frame then costs
//! in proportion to the cells it shows, whatever the size of the payload.

mod block;
mod cache;
mod editor;
mod fit;
mod footer;
mod question_tab;
mod review;
mod tab_bar;

use self::block::{window, Block};
use self::fit::{compact, fit, fit_parts};
use self::footer::footer;
use self::question_tab::question_tab;
use self::review::review;
use self::tab_bar::tab_bar;
use super::frame::Frame;
use super::style::{Line, Role, Style};
use super::text::{sanitize_line, truncate_ellipsis};
use crate::dialog::Dialog;

pub use self::cache::ViewCache;
pub use self::question_tab::SIDE_BY_SIDE_WIDTH;

/// Below this width (a phone's 27 columns; the popup, 80% of the screen by default, on a screen
/// under 100 columns) the compact layout: nothing is cut at the right. From it on the usual
/// one, where tabs that do not fit scroll and a line too long for the pane ends with `…`.
pub const COMPACT_WIDTH: usize = 80;

/// The smallest pane the dialog is drawn in; below it, a one-line notice.
pub const MIN_WIDTH: usize = 20;
pub const MIN_HEIGHT: usize = 6;

/// What surrounds the dialog: who asks, how many are waiting, and the hide key's name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chrome {
    /// One line above the dialog, e.g. `claude asks · 1 of 3 waiting`.
    pub banner: Option<String>,
    /// The hide key as the footer names it (`Ctrl+]`), or None when hiding is off.
    pub hide_key: Option<String>,
    /// The request just appeared and keys do not count yet: the footer shows `…`.
    pub settling: bool,
}

/// Draws the dialog in a pane of `width` × `height` cells.
pub fn render(
    dialog: &Dialog,
    cache: &mut ViewCache,
    chrome: &Chrome,
    width: usize,
    height: usize,
) -> Frame {
    draw(dialog, cache, chrome, width, height, Drawing::Cut)
}

/// The frame [`render`] draws, laid out for the same pane, but with the question or the review
/// left whole where `render` cuts it to the pane under `↑ N more` / `↓ N more` markers; it may
/// be taller than `height`. It shows what those markers stand for, so a test can check them
/// without repeating the arithmetic that placed them.
#[doc(hidden)]
pub fn render_uncut(
    dialog: &Dialog,
    cache: &mut ViewCache,
    chrome: &Chrome,
    width: usize,
    height: usize,
) -> Frame {
    draw(dialog, cache, chrome, width, height, Drawing::Uncut)
}

/// What a frame is drawn for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Drawing {
    /// To show: cut to the pane ([`render`]).
    Cut,
    /// Whole ([`render_uncut`]).
    Uncut,
    /// Whole, for its number of lines only ([`natural_height`]): the preview's lines are
    /// counted, not copied.
    Measure,
}

/// [`render`], [`render_uncut`], or the frame [`natural_height`] counts the lines of.
fn draw(
    dialog: &Dialog,
    cache: &mut ViewCache,
    chrome: &Chrome,
    width: usize,
    height: usize,
    drawing: Drawing,
) -> Frame {
    if width < MIN_WIDTH || height < MIN_HEIGHT {
        return too_small(width, height);
    }
    cache.prepare(width);
    let (top, bottom, avail) = around(dialog, chrome, width, height);

    let mut preview_max_scroll = None;
    let middle = if dialog.on_submit_tab() {
        review(dialog, width)
    } else {
        question_tab(
            dialog,
            cache,
            width,
            avail,
            drawing == Drawing::Measure,
            &mut preview_max_scroll,
        )
    };
    let cut = drawing == Drawing::Cut;
    let middle = if cut {
        window(middle, avail, width)
    } else {
        middle
    };
    let mut frame = Frame {
        width,
        height,
        lines: Vec::with_capacity(height),
        hits: Vec::new(),
        preview_max_scroll,
    };
    stack(&mut frame, [top, middle, bottom]);
    if cut {
        frame.lines.truncate(height);
    }
    frame
}

/// The frame of a pane too small for the dialog: a one-line notice.
fn too_small(width: usize, height: usize) -> Frame {
    let notice = format!("Enlarge this pane to at least {MIN_WIDTH}×{MIN_HEIGHT}");
    Frame {
        width,
        height,
        lines: if width == 0 || height == 0 {
            Vec::new()
        } else {
            vec![Line::styled(
                truncate_ellipsis(&notice, width).into_owned(),
                Role::Warning,
            )]
        },
        hits: Vec::new(),
        preview_max_scroll: None,
    }
}

/// Above the question or the review (the banner, the tab bar or the only question's header,
/// and a blank line), below it (a blank line and the footer), and the rows left for it in a
/// pane `height` rows tall. Very short panes lose the spacing first, then the footer's lines
/// after its first, the banner, and the rows of the tab bar but the current tab's.
fn around(dialog: &Dialog, chrome: &Chrome, width: usize, height: usize) -> (Block, Block, usize) {
    let mut top = Block::default();
    if let Some(banner) = &chrome.banner {
        top.push_all(fit_parts(&sanitize_line(banner), width, Role::Muted.into()));
    }
    let banner = top.len();
    if dialog.tab_count() > 1 {
        tab_bar(dialog, width, &mut top);
    } else if let Some(question) = dialog.questionnaire().questions.first() {
        let header = format!(" {} ", sanitize_line(&question.header));
        let style = Style::new(Role::Selected).bold();
        top.push_all(fit(compact(width), &header, width, 1, style, usize::MAX));
    }
    top.blank();
    let mut bottom = Block::default();
    bottom.blank();
    bottom.push_all(footer(dialog, chrome, width));
    let mut cuts = 0;
    loop {
        let avail = height.saturating_sub(top.len() + bottom.len());
        if avail >= 3 || cuts > 4 {
            top.focus = None;
            return (top, bottom, avail);
        }
        match cuts {
            0 => bottom.keep(1..bottom.len()),
            1 => top.keep(0..top.len().saturating_sub(1)),
            2 => bottom.keep(0..1),
            3 => top.keep(banner..top.len()),
            // The tab bar's rows but the current tab's (its focus).
            _ => {
                if let Some(focus) = top.focus {
                    top.keep(focus.start..focus.end);
                }
            }
        }
        cuts += 1;
    }
}

/// The blocks one under the other into `frame`, with their click targets.
fn stack(frame: &mut Frame, [top, middle, bottom]: [Block; 3]) {
    let width = frame.width;
    let mut out = top;
    out.append(middle);
    out.append(bottom);
    for (mut line, measured) in out.lines {
        // Layout keeps lines within the width; cutting what was not measured makes that
        // hold even where a computation is off by a cell.
        if measured.is_none_or(|w| w > width) {
            line.clip(width);
        }
        frame.lines.push(line);
    }
    frame.hits = out.hits;
}

/// Lays out ahead of time, while the user reads, what a key could show next in a pane of
/// `width` × `height` cells: each question's tab as arriving there shows it, and each option's
/// preview (with its rows), the current question first. One text with a layout of its own per
/// call (a preview, or a tab's question and options), so a key that comes meanwhile waits for
/// one at most; returns whether any is left. Without it the key that moves to an option lays
/// out its preview (a few milliseconds for 8 KiB of markdown in Zellij's interpreter); with
/// it, a key draws from the cache.
pub fn lay_out_ahead(
    dialog: &mut Dialog,
    cache: &mut ViewCache,
    chrome: &Chrome,
    width: usize,
    height: usize,
) -> bool {
    cache.prepare(width);
    if cache.ahead == 0 {
        cache.ahead_from = dialog.tab();
    }
    let items: Vec<_> = cache::ahead_items(dialog, cache.ahead_from).collect();
    while let Some(&(question, option)) = items.get(cache.ahead) {
        if cache.lines() >= cache::MAX_AHEAD_LINES {
            return false;
        }
        cache.ahead += 1;
        let before = cache.layouts();
        let focus = option.or_else(|| dialog.tab_state(question).map(|tab| tab.focus));
        dialog.with_focus(question, focus.unwrap_or(0), |shown| {
            draw(shown, cache, chrome, width, height, Drawing::Measure)
        });
        if cache.layouts() > before {
            break;
        }
    }
    cache.ahead_left(dialog)
}

/// How many rows `dialog` needs at `cols` columns to show all of its tallest tab, so the
/// popup can be no taller than that, or `limit` when that is more (the popup has no more rows
/// to give: a taller tab makes no difference). The current tab counts as it is (an editor
/// open), and an open editor gets room to grow as the user types.
///
/// The current tab is measured first: when it alone reaches `limit` (a preview longer than
/// the popup, the usual case with previews), no other tab is laid out for it. The frames
/// measured are not drawn: a preview's lines are counted, not copied.
pub fn natural_height(
    dialog: &mut Dialog,
    cache: &mut ViewCache,
    chrome: &Chrome,
    cols: usize,
    limit: usize,
) -> usize {
    /// Tall enough for any dialog; a longer preview is cut at the popup's maximum anyway.
    const UNLIMITED: usize = 500;
    /// Rows an open editor may still grow by (it shows up to six lines).
    const EDITOR_GROWTH: usize = 5;
    let growth = if dialog.mode() == crate::dialog::Mode::Browse {
        0
    } else {
        EDITOR_GROWTH
    };
    let mut height = |dialog: &Dialog| {
        draw(dialog, cache, chrome, cols, UNLIMITED, Drawing::Measure)
            .lines
            .len()
    };
    let mut tallest = height(dialog);
    if tallest.saturating_add(growth) < limit {
        tallest = dialog
            .measure_tabs(|shown| {
                if tallest.saturating_add(growth) >= limit {
                    0
                } else {
                    let shown = height(shown);
                    tallest = tallest.max(shown);
                    shown
                }
            })
            .max(tallest);
    }
    tallest.saturating_add(growth).min(limit)
}
