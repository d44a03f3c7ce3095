//! The Submit tab: every question with its answer and notes, a warning naming the unanswered
//! ones, and the two choices.

use super::block::{Block, Focus};
use super::editor::{note_lines, MAX_EDITOR_LINES};
use super::fit::{compact, fit};
use crate::dialog::{Dialog, Mode, Target, SUBMIT_CHOICES};
use crate::view::style::{Line, Role, Style};
use crate::view::text::{sanitize, sanitize_line};
use crate::view::wrap::wrap;
use ask_popup_protocol::elicitation::answers::HIDDEN;
use ask_popup_protocol::envelope;

/// The Submit tab for a pane `width` cells wide.
pub(super) fn review(dialog: &Dialog, width: usize) -> Block {
    let mut out = Block::default();
    out.push(Line::styled(
        "Review your answers",
        Style::new(Role::Accent).bold(),
    ));
    out.blank();
    let mut unanswered = Vec::new();
    for question_index in 0..dialog.questionnaire().questions.len() {
        if let Some(header) = question_summary(dialog, question_index, width, &mut out) {
            unanswered.push(header);
        }
    }
    if !dialog.global_note().is_blank() && dialog.mode() != Mode::Note {
        out.push(Line::styled(" ● Note", Role::Success));
        let text = format!("   → {}", sanitize_line(dialog.global_note().text().trim()));
        push_fit(
            &text,
            width,
            5,
            Role::Text.into(),
            MAX_EDITOR_LINES,
            &mut out,
        );
    }
    out.blank();
    if dialog.form().is_some() {
        form_readiness(dialog, width, &mut out);
    } else {
        readiness(&unanswered, width, &mut out);
    }
    out.blank();
    submit_choices(dialog, width, &mut out);
    out
}

/// A question's header with its answer (its first three lines) or `not answered`, and its
/// notes. Returns the header of a question not answered.
fn question_summary(
    dialog: &Dialog,
    question_index: usize,
    width: usize,
    out: &mut Block,
) -> Option<String> {
    let questionnaire = dialog.questionnaire();
    let header = sanitize_line(&questionnaire.questions.get(question_index)?.header);
    let mut unanswered = None;
    match dialog.answer(question_index) {
        Some(answer) => {
            let text = format!(" ● {header}");
            push_fit(&text, width, 3, Role::Success.into(), usize::MAX, out);
            let text = match dialog.form() {
                // A secret is never on screen.
                Some(form) if form.secret(question_index) => HIDDEN.to_owned(),
                _ => sanitize(&envelope::answer_text(
                    questionnaire,
                    question_index,
                    &answer,
                )),
            };
            let answer_width = width.saturating_sub(5).max(1);
            for (n, line) in wrap(&text, answer_width).into_iter().take(3).enumerate() {
                let lead = if n == 0 { "   → " } else { "     " };
                let mut answer_line = Line::styled(lead, Role::Muted);
                answer_line.push(line, Role::Text);
                out.push(answer_line);
            }
        }
        None => {
            let text = format!(" ○ {header}");
            push_fit(&text, width, 3, Role::Muted.into(), usize::MAX, out);
            out.push(Line::styled("   → not answered", Role::Dim));
            unanswered = Some(header);
        }
    }
    if let Some(misfit) = dialog.misfit(question_index) {
        let text = format!("   ⚠ {misfit}");
        push_fit(&text, width, 5, Role::Warning.into(), usize::MAX, out);
    }
    if let Some(note) = dialog
        .tab_state(question_index)
        .map(|tab| &tab.note)
        .filter(|note| !note.is_blank())
    {
        let text = format!("     notes: {}", sanitize_line(note.text().trim()));
        push_fit(&text, width, 5, Role::Dim.into(), MAX_EDITOR_LINES, out);
    }
    unanswered
}

/// Whether the answers are ready to go, or a warning that names the `unanswered` questions.
fn readiness(unanswered: &[String], width: usize, out: &mut Block) {
    if unanswered.is_empty() {
        let text = "Ready to submit your answers?";
        push_fit(text, width, 0, Role::Muted.into(), usize::MAX, out);
    } else {
        let text = format!(
            "⚠ Not answered: {} (you can still submit)",
            unanswered.join(", ")
        );
        for line in wrap(&text, width) {
            out.push(Line::styled(line, Role::Warning));
        }
    }
}

/// Whether a form can be sent, or the fields that keep it from being sent.
fn form_readiness(dialog: &Dialog, width: usize, out: &mut Block) {
    let unfit: Vec<String> = (0..dialog.question_count())
        .filter(|i| dialog.misfit(*i).is_some())
        .filter_map(|i| dialog.questionnaire().questions.get(i))
        .map(|question| sanitize_line(&question.header))
        .collect();
    if unfit.is_empty() {
        let text = "Ready to send the form?";
        push_fit(text, width, 0, Role::Muted.into(), usize::MAX, out);
    } else {
        let text = format!("⚠ Not sent until these fit: {}", unfit.join(", "));
        for line in wrap(&text, width) {
            out.push(Line::styled(line, Role::Warning));
        }
    }
}

/// The choices (submit, or cancel), the focused one the block's focus; and the global note's
/// editor under them while it is open, kept in view with them.
fn submit_choices(dialog: &Dialog, width: usize, out: &mut Block) {
    let start = out.len();
    for (choice_index, choice) in SUBMIT_CHOICES.iter().enumerate() {
        let focused = dialog.submit_focus() == choice_index;
        let pointer = if focused { "❯ " } else { "  " };
        let text = format!("{pointer}{}. {choice}", choice_index + 1);
        out.push(Line::styled(
            text,
            if focused {
                Style::new(Role::Accent).bold()
            } else {
                Style::new(Role::Text)
            },
        ));
        out.hit(Target::SubmitChoice(choice_index), 0..width);
    }
    let pointer = (start + dialog.submit_focus()).min(out.len().saturating_sub(1));
    out.focus = Some(Focus {
        start,
        end: out.len(),
        pointer,
    });
    if dialog.mode() == Mode::Note {
        note_lines(dialog, dialog.global_note(), width, "Global note", out);
        // While typing the note, keep it in view.
        out.focus = Some(Focus {
            start,
            end: out.len(),
            pointer,
        });
    }
}

/// [`fit`] into `out`.
fn push_fit(
    text: &str,
    width: usize,
    indent: usize,
    style: Style,
    max_lines: usize,
    out: &mut Block,
) {
    out.push_all(fit(compact(width), text, width, indent, style, max_lines));
}
