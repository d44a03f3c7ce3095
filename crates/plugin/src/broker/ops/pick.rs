//! What the desktop notification the command shows for a waiting request may do: answer it with
//! one of its options (`pick`), exactly as the person's pick of that option in the popup would,
//! or bring it forward in the popup (`show` with its `id`). A notification offers only the options
//! of a lone single-select question and an approval's Deny: what an approval allows must be read
//! whole, in the popup, so no `pick` ever allows, whatever it says.

use crate::broker::{pipes::*, request::Decided, state::Broker};
use crate::effect::Effect;
use crate::outgoing::{to_json, Picked};
use ask_popup_protocol::approval::DENY;
use ask_popup_protocol::envelope::{Answer, Outcome};
use ask_popup_protocol::request::Questionnaire;
use std::collections::BTreeMap;

/// Why a `pick` changed nothing (the reply's `refused`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refused {
    /// No such request waits (answered, withdrawn, or never asked).
    Unknown,
    /// A notification offers no such pick.
    NotOffered,
}

impl Refused {
    fn as_str(self) -> &'static str {
        match self {
            Refused::Unknown => "unknown",
            Refused::NotOffered => "not_offered",
        }
    }
}

impl Broker {
    /// The `pick` pipe (CLI pipe `pipe`): answered on its first message with whether it
    /// answered the request.
    pub(super) fn pick_pipe(&mut self, pipe: &str, msg: &PipeIn, effects: &mut Vec<Effect>) {
        self.answer_first(pipe, msg.payload.is_some(), effects, |b, fx| {
            let refused = b.pick(&msg.args, fx).err();
            let picked = Picked {
                picked: refused.is_none(),
                refused: refused.map(Refused::as_str),
            };
            format!("{}\n", to_json(&picked))
        });
    }

    /// Answers the caller's waiting request `id` with the option `args` name, as if the person
    /// had picked it and confirmed: what they gave in the popup so far (notes) goes with it.
    /// Every instance hears the pipe and decides alike; the leader replies.
    fn pick(
        &mut self,
        args: &BTreeMap<String, String>,
        effects: &mut Vec<Effect>,
    ) -> Result<(), Refused> {
        let id = args.get("id").filter(|id| !id.is_empty());
        let index = id
            .and_then(|id| self.queue.position_of(&Asker::of(args), id))
            .ok_or(Refused::Unknown)?;
        let request = self
            .queue
            .get_mut(index)
            .filter(|r| !r.provisional)
            .ok_or(Refused::Unknown)?;
        let option = pickable(request.dialog.questionnaire(), args)?;
        let mut responses = request.dialog.responses();
        if let Some(first) = responses.answers.first_mut() {
            *first = Some(Answer::Option(option));
        }
        request.answered_from = Some(match args.get("from").map(String::as_str) {
            Some("notification") => "notification",
            _ => "pipe",
        });
        self.resolve(
            index,
            Outcome::Submitted(responses),
            Decided::Everywhere,
            effects,
        );
        Ok(())
    }

    /// The `show` pipe's `id` (with its caller's `pane_id` or `agent`): that request comes
    /// forward, the one the popup shows.
    pub(super) fn bring_forward(
        &mut self,
        args: &BTreeMap<String, String>,
        effects: &mut Vec<Effect>,
    ) {
        let Some(id) = args.get("id").filter(|id| !id.is_empty()) else {
            return;
        };
        let index = self.queue.position_of(&Asker::of(args), id);
        if index.is_some_and(|i| self.queue.make_current(i)) && self.visible {
            // Another request on screen: the popup fits it anew (`show` draws it).
            effects.push(Effect::FitAnew);
        }
    }
}

/// The option of `questionnaire` that `args` picks (`option=N`, or `deny=1` for an approval's
/// Deny), when a notification offers it: never an approval's other rows, nor anything of a
/// questionnaire of several questions, a multi-select one or a form.
fn pickable(
    questionnaire: &Questionnaire,
    args: &BTreeMap<String, String>,
) -> Result<usize, Refused> {
    let [question] = questionnaire.questions.as_slice() else {
        return Err(Refused::NotOffered);
    };
    if question.multi_select || questionnaire.form.is_some() {
        return Err(Refused::NotOffered);
    }
    let deny = args.get("deny").is_some_and(|v| v == "1");
    let option = args.get("option").map(|o| o.trim().parse::<usize>());
    match (questionnaire.approval, deny, option) {
        (true, true, None) => question
            .options
            .iter()
            .position(|o| o.label == DENY)
            .ok_or(Refused::NotOffered),
        (false, false, Some(Ok(option))) if option < question.options.len() => Ok(option),
        _ => Err(Refused::NotOffered),
    }
}
