//! The payload's text laid out per width and kept for the life of a request, so a frame costs
//! in proportion to the cells it shows, whatever the size of the payload.

use super::fit::{compact, end_with_ellipsis};
use crate::dialog::Dialog;
use crate::view::limit;
use crate::view::markdown;
use crate::view::style::{Line, Role, Style};
use crate::view::text::sanitize;
use crate::view::wrap::wrap;
use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;

/// Description lines shown per option.
const MAX_DESCRIPTION_LINES: usize = 4;
/// In the compact layout, as many lines as keep about this many cells of a description in
/// view: what four lines of the usual width hold.
const COMPACT_DESCRIPTION_CELLS: usize = MAX_DESCRIPTION_LINES * 72;

/// A part of the payload that is laid out for a width: question and option indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum PayloadText {
    Question(usize),
    Context(usize),
    Label(usize, usize),
    Description(usize, usize),
    Preview(usize, usize),
}

/// Laid-out payload text, per request and width.
#[derive(Debug, Default)]
pub struct ViewCache {
    laid_out: HashMap<(PayloadText, usize), Rc<LaidOut>>,
    pane_width: usize,
    /// How many of the texts a key could show next were laid out ahead, at `pane_width`, and
    /// from which question on (see `view::lay_out_ahead`).
    pub(super) ahead: usize,
    pub(super) ahead_from: usize,
    /// Texts laid out in all, for the tests: a key after everything was laid out ahead lays
    /// out nothing.
    layouts: usize,
    /// The lines `laid_out` holds.
    lines: usize,
}

/// The most lines the layouts of a request hold: past it, a new layout drops the others (the
/// frame being drawn keeps those it uses), so the texts of a questionnaire with many long
/// previews are laid out again when shown again rather than all held.
const MAX_CACHED_LINES: usize = 4 * limit::MAX_LINES;
/// Laying out ahead stops when the layouts hold this many lines: what is left is laid out when
/// it is shown.
pub(super) const MAX_AHEAD_LINES: usize = 2 * limit::MAX_LINES;

impl ViewCache {
    pub fn new() -> Self {
        ViewCache::default()
    }

    /// Forgets layouts made for another pane width, so a resized pane does not keep them all.
    pub(super) fn prepare(&mut self, pane_width: usize) {
        if self.pane_width != pane_width {
            self.forget();
            self.pane_width = pane_width;
        }
    }

    /// Drops every layout (a request no longer on screen holds none).
    pub fn forget(&mut self) {
        self.laid_out.clear();
        self.lines = 0;
        self.ahead = 0;
    }

    /// Whether `lay_out_ahead` has anything left to lay out (at the width it last did).
    pub fn ahead_left(&self, dialog: &Dialog) -> bool {
        self.lines < MAX_AHEAD_LINES && self.ahead < ahead_items(dialog, self.ahead_from).count()
    }

    /// The lines the layouts hold.
    pub(super) fn lines(&self) -> usize {
        self.lines
    }

    /// How many texts were laid out since the request came (each once per width).
    pub fn layouts(&self) -> usize {
        self.layouts
    }

    pub(super) fn get(&mut self, dialog: &Dialog, text: PayloadText, width: usize) -> Rc<LaidOut> {
        if let Some(laid_out) = self.laid_out.get(&(text, width)) {
            return laid_out.clone();
        }
        let description_lines = if compact(self.pane_width) {
            MAX_DESCRIPTION_LINES.max(COMPACT_DESCRIPTION_CELLS / width.max(1))
        } else {
            MAX_DESCRIPTION_LINES
        };
        let laid_out = Rc::new(LaidOut::new(lay_out(
            dialog,
            text,
            width,
            description_lines,
        )));
        self.layouts += 1;
        if self.lines + laid_out.len() > MAX_CACHED_LINES {
            self.laid_out.clear();
            self.lines = 0;
        }
        self.lines += laid_out.len();
        self.laid_out.insert((text, width), laid_out.clone());
        laid_out
    }
}

/// Laid-out lines with their widths, each measured the first time it is shown: a long preview
/// is laid out once, but only the lines on screen are ever measured.
#[derive(Debug)]
pub(super) struct LaidOut {
    lines: Vec<Line>,
    widths: Vec<Cell<Option<usize>>>,
}

impl LaidOut {
    pub(super) fn new(lines: Vec<Line>) -> Self {
        let widths = vec![Cell::new(None); lines.len()];
        LaidOut { lines, widths }
    }
    pub(super) fn len(&self) -> usize {
        self.lines.len()
    }
    fn width(&self, index: usize) -> usize {
        let Some(measured) = self.widths.get(index) else {
            return 0;
        };
        measured.get().unwrap_or_else(|| {
            let width = self.lines.get(index).map_or(0, Line::width);
            measured.set(Some(width));
            width
        })
    }
    pub(super) fn iter(&self) -> impl Iterator<Item = (&Line, usize)> {
        self.rows(0, self.len())
    }
    /// Up to `count` lines from `start`, measuring only those.
    pub(super) fn rows(&self, start: usize, count: usize) -> impl Iterator<Item = (&Line, usize)> {
        let end = start.saturating_add(count).min(self.len());
        let start = start.min(end);
        (start..end).filter_map(move |i| Some((self.lines.get(i)?, self.width(i))))
    }
    pub(super) fn max_width(&self) -> usize {
        (0..self.len()).map(|i| self.width(i)).max().unwrap_or(0)
    }
}

/// What `lay_out_ahead` lays out, in order: for each question from question `from` on (the one
/// on screen when it started, so that the order holds while the user moves), its tab as
/// arriving there shows it (no option), then each of its options with a preview.
pub(super) fn ahead_items(
    dialog: &Dialog,
    from: usize,
) -> impl Iterator<Item = (usize, Option<usize>)> + '_ {
    let questions = &dialog.questionnaire().questions;
    let count = questions.len();
    (0..count)
        .map(move |k| (from + k) % count)
        .filter_map(|q| Some((q, questions.get(q)?)))
        .flat_map(|(q, question)| {
            std::iter::once((q, None)).chain(
                question
                    .options
                    .iter()
                    .enumerate()
                    .filter(|(_, option)| option.preview.is_some())
                    .map(move |(o, _)| (q, Some(o))),
            )
        })
}

/// `s` wrapped to `width`: its first `limit::MAX_BYTES` in at most `limit::MAX_LINES` lines,
/// and a line that says so when that is not all of it.
fn plain_lines(s: &str, width: usize, style: Style) -> Vec<Line> {
    let (head, left) = limit::head(s);
    let mut lines: Vec<Line> = wrap(&sanitize(head), width)
        .into_iter()
        .take(limit::MAX_LINES + 1)
        .map(|l| Line::styled(l, style))
        .collect();
    limit::finish(&mut lines, left > 0, s.len(), width);
    lines
}

/// `text` laid out for `width` cells; a description in at most `description_lines` lines.
fn lay_out(
    dialog: &Dialog,
    text: PayloadText,
    width: usize,
    description_lines: usize,
) -> Vec<Line> {
    let questions = &dialog.questionnaire().questions;
    let option = |question_index: usize, option_index: usize| {
        questions
            .get(question_index)
            .and_then(|question| question.options.get(option_index))
    };
    match text {
        PayloadText::Question(question_index) => questions
            .get(question_index)
            .map_or_else(Vec::new, |question| {
                plain_lines(&question.question, width, Style::new(Role::Text).bold())
            }),
        PayloadText::Context(question_index) => questions
            .get(question_index)
            .and_then(|question| question.context.as_deref())
            .map_or_else(Vec::new, |context| markdown::render(context, width)),
        PayloadText::Label(question_index, option_index) => option(question_index, option_index)
            .map_or_else(Vec::new, |option| {
                plain_lines(&option.label, width, Style::new(Role::Text))
            }),
        PayloadText::Description(question_index, option_index) => {
            option(question_index, option_index).map_or_else(Vec::new, |option| {
                let mut lines = plain_lines(&option.description, width, Style::new(Role::Muted));
                if option.description.trim().is_empty() {
                    lines.clear();
                }
                if lines.len() > description_lines {
                    lines.truncate(description_lines);
                    if let Some(last) = lines.last_mut() {
                        end_with_ellipsis(last, width);
                    }
                }
                lines
            })
        }
        PayloadText::Preview(question_index, option_index) => option(question_index, option_index)
            .and_then(|option| option.preview.as_deref())
            .map_or_else(Vec::new, |preview| markdown::render(preview, width)),
    }
}
