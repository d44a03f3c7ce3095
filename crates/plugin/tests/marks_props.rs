//! The waiting mark on pane titles, through random sequences of requests, endings, program
//! title changes and late (stale) pane updates, against a model of how Zellij 0.45.1 titles
//! a terminal pane: its explicit name if it has one, else its program's title.

mod broker_io;

use ask_popup_plugin::broker::{Broker, Config, Effect};
use ask_popup_plugin::dialog::{Input, Key};
use broker_io::*;
use proptest::prelude::*;

const MARK: &str = "⏳ ";

/// A terminal pane as Zellij keeps it.
#[derive(Clone, Debug)]
struct Pane {
    /// The explicit name (a layout's `name`, the user's rename, or ours); empty for none.
    name: String,
    /// What the program in it set.
    program: String,
}

impl Pane {
    fn title(&self) -> String {
        if self.name.is_empty() {
            self.program.clone()
        } else {
            self.name.clone()
        }
    }
}

#[derive(Clone, Debug)]
enum Step {
    Ask,
    Answer,
    Withdraw,
    Update,
    /// The oldest update not yet delivered: Zellij sends them in order, but they lag behind
    /// the renames the plugin asked for.
    LateUpdate,
    Program(u8),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        2 => Just(Step::Ask),
        1 => Just(Step::Answer),
        1 => Just(Step::Withdraw),
        3 => Just(Step::Update),
        2 => Just(Step::LateUpdate),
        1 => (0u8..3).prop_map(Step::Program),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn titles_never_gain_a_second_mark_and_always_come_back(
        explicit in prop_oneof![Just(String::new()), Just("agent-1".to_owned())],
        steps in prop::collection::vec(step(), 1..40),
    ) {
        let mut b = Broker::new(Config::default());
        let mut pane = Pane { name: explicit.clone(), program: "bash".to_owned() };
        // Every title the pane showed, in order; the ones from `delivered` on are in flight.
        let mut sent: Vec<String> = vec![pane.title()];
        let mut delivered = 0;
        let mut asked = 0;
        // Whether the program's title changed where the plugin could not see it: while the
        // pane was marked, or before a mark put on a title the plugin knew from earlier. Only
        // then may the old title be pinned.
        let mut changed_unseen = false;
        let apply = |fx: &[Effect], pane: &mut Pane, sent: &mut Vec<String>, changed: &mut bool| {
            for (id, title) in renames(fx) {
                assert_eq!(id, 7);
                if title.strip_prefix(MARK).is_some_and(|t| t != pane.title()) {
                    *changed = true;
                }
                pane.name = title;
                sent.push(pane.title());
            }
        };
        for step in steps {
            let fx = match step {
                Step::Ask => {
                    asked += 1;
                    let id = asked.to_string();
                    b.pipe(cli(&format!("p{asked}"), Some(&question("Q?")), &[("pane_id", "7"), ("id", &id)]))
                }
                Step::Answer => {
                    settle(&mut b);
                    b.input(Input::Key(Key::Esc))
                }
                Step::Withdraw => {
                    let id = asked.to_string();
                    b.pipe(named("c", "cancel", Some(""), &[("pane_id", "7"), ("id", &id)]))
                }
                Step::Update => {
                    // Every update in flight arrives, in order, and what they cause too.
                    while let Some(title) = sent.get(delivered).cloned() {
                        delivered += 1;
                        let fx = b.pane_titles([(7, title)]);
                        apply(&fx, &mut pane, &mut sent, &mut changed_unseen);
                    }
                    Vec::new()
                }
                Step::LateUpdate => match sent.get(delivered).cloned() {
                    Some(title) => {
                        delivered += 1;
                        b.pane_titles([(7, title)])
                    }
                    None => Vec::new(),
                },
                Step::Program(n) => {
                    if pane.name.starts_with(MARK) {
                        changed_unseen = true;
                    }
                    pane.program = format!("prog{n}");
                    sent.push(pane.title());
                    Vec::new()
                }
            };
            apply(&fx, &mut pane, &mut sent, &mut changed_unseen);
            prop_assert!(!pane.title().starts_with(&format!("{MARK}{MARK}")), "doubled: {:?}", pane);
            prop_assert!(!pane.title().starts_with(MARK) || b.pending_count() > 0, "marked with nobody waiting: {:?}", pane);
        }
        // Everything ends; Zellij reports the title until nothing changes.
        for _ in 0..50 {
            if b.pending_count() == 0 { break; }
            settle(&mut b);
            let fx = b.input(Input::Key(Key::Esc));
            apply(&fx, &mut pane, &mut sent, &mut changed_unseen);
        }
        while let Some(title) = sent.get(delivered).cloned() {
            delivered += 1;
            let fx = b.pane_titles([(7, title)]);
            apply(&fx, &mut pane, &mut sent, &mut changed_unseen);
        }
        prop_assert!(!pane.title().starts_with(MARK), "the mark stuck: {:?}", pane);
        if !explicit.is_empty() {
            prop_assert_eq!(&pane.name, &explicit, "the explicit name came back");
        } else if !changed_unseen {
            prop_assert_eq!(&pane.name, "", "the name is not pinned: later program titles show");
        }
    }
}
