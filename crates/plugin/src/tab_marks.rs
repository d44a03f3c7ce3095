//! The waiting mark on tab names: a tab reads `⏳ name` while an agent in one of its panes
//! waits (a question, an approval, a form, a `blocked` wait), once however many wait there, and
//! gets its name back when the last wait in it ends, however it ends.
//!
//! Zellij 0.45.1 shows a tab's name, but on a tab of one pane that has no name of its own it
//! shows the pane's explicit title, so the pane's mark (`marks.rs`) shows there already. So a
//! tab is marked once a waiting pane of it shows its mark, and left alone if its name then
//! reads as that pane's title.
//!
//! A pane update says which tab a pane is in by the tab's position, and a tab closed before
//! it shifts the positions; Zellij sends the tab update right after the pane update, from the
//! same moment, so the two are read together, and the tab is renamed by its id.
//!
//! The name the mark was put on is put back as it was. A tab made without a name is named
//! `Tab #N` (N its id plus one) and counts as unnamed while it carries that name, which lets
//! its pane's title show; an empty name would show empty. So `Tab #N` is put back, not "".
//!
//! A person who renames a marked tab keeps their name: it is not marked again while its waits
//! last (Zellij renames a tab a key at a time as the name is typed, and a mark put in between
//! would fight the typing), and the next wait marks it anew. Should the rename be undone, back
//! to the marked name, the mark is ours again.
//!
//! As with pane titles, Zellij reports each rename late: updates sent before it took effect
//! still come after it was asked. So each rename's echo is awaited, and the tab's name is not
//! read, nor the tab renamed again, until it came (one rename at a time). Every instance keeps
//! the marks alike; only the leader's renames are sent (`instance.rs`).

use crate::effect::Effect;
use crate::incoming::{PaneState, TabState};
use crate::marks::{strip_mark, TITLE_MARK};

/// Updates that may pass without an awaited echo before it is given up on.
const PATIENCE: u32 = 32;

/// How a rename of ours will show in a tab update.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Echo {
    /// Exactly this name.
    Exact(String),
    /// A name without our mark (the name put back, or the person's own, which wins).
    Unmarked,
}

/// One tab, as the latest tab update showed it, and its mark.
#[derive(Clone, Debug, Default)]
struct Tab {
    id: u32,
    position: usize,
    /// Its name as Zellij shows it.
    name: String,
    /// While marked: the name the mark was put on.
    marked: Option<String>,
    /// The person renamed it since it was marked.
    renamed: bool,
    /// The rename of ours that the host has not reported yet.
    awaited: Option<Echo>,
    /// Updates seen while waiting for it.
    waited: u32,
}

impl Tab {
    /// A tab update showed the tab named `name`.
    fn heard(&mut self, name: &str) {
        if let Some(echo) = &self.awaited {
            let arrived = match echo {
                Echo::Exact(expected) => expected == name,
                Echo::Unmarked => !has_mark(name),
            };
            self.waited += 1;
            if !arrived && self.waited <= PATIENCE {
                // An update from before our rename took effect.
                return;
            }
            self.awaited = None;
            self.waited = 0;
        }
        if let Some(before) = &self.marked {
            self.renamed = name != marked(before);
        }
    }

    /// Renames the tab: `name` shows once Zellij reports `echo`.
    fn rename(&mut self, name: String, echo: Echo, fx: &mut Vec<Effect>) {
        self.awaited = Some(echo);
        fx.push(Effect::RenameTab { tab: self.id, name });
    }
}

/// A terminal pane: its id, its tab's position, its title.
type Pane = (u32, usize, String);

/// The tabs' waiting marks, and what the latest updates said of the tabs and panes.
#[derive(Clone, Debug, Default)]
pub struct TabMarks {
    /// `tab_marks` (and `indicator`): without it nothing is kept or done.
    enabled: bool,
    tabs: Vec<Tab>,
    /// The terminal panes, as the pane update before the latest tab update has them.
    panes: Vec<Pane>,
    /// The latest pane update, until its tab update comes.
    next_panes: Option<Vec<Pane>>,
}

impl TabMarks {
    pub fn new(enabled: bool) -> TabMarks {
        TabMarks {
            enabled,
            ..TabMarks::default()
        }
    }

    /// A pane update came; read with the tab update that follows it.
    pub fn panes(&mut self, panes: &[PaneState]) {
        if self.enabled {
            let terminals = panes.iter().filter(|p| !p.is_plugin);
            self.next_panes = Some(terminals.map(|p| (p.id, p.tab, p.title.clone())).collect());
        }
    }

    /// A tab update came: the echoes awaited are looked for, a person's rename is noted, and
    /// the tabs closed are forgotten.
    pub fn tabs(&mut self, tabs: &[TabState]) {
        if !self.enabled {
            return;
        }
        if let Some(panes) = self.next_panes.take() {
            self.panes = panes;
        }
        let mut before = std::mem::take(&mut self.tabs);
        for state in tabs {
            let mut tab = match before.iter().position(|t| t.id == state.id) {
                Some(i) => before.swap_remove(i),
                None => Tab {
                    id: state.id,
                    ..Tab::default()
                },
            };
            tab.position = state.position;
            tab.heard(&state.name);
            tab.name.clone_from(&state.name);
            self.tabs.push(tab);
        }
    }

    /// Puts the marks on and takes them off as they should be while the agents of the
    /// `waiting` panes wait.
    pub fn settle(&mut self, waiting: &[u32], fx: &mut Vec<Effect>) {
        if !self.enabled {
            return;
        }
        for tab in self.tabs.iter_mut().filter(|t| t.awaited.is_none()) {
            // The titles of its waiting panes, as Zellij shows them.
            let titles = self
                .panes
                .iter()
                .filter(|(id, at, _)| *at == tab.position && waiting.contains(id))
                .map(|(_, _, title)| title);
            let waits = titles.clone().next().is_some();
            match (waits, tab.marked.take()) {
                (false, Some(before)) if !tab.renamed => tab.rename(before, Echo::Unmarked, fx),
                (false, _) => tab.renamed = false,
                (true, Some(before)) => tab.marked = Some(before),
                (true, None) => {
                    // Once a waiting pane shows its mark, unless the tab shows that title.
                    let mut shown = titles.filter(|t| has_mark(t)).peekable();
                    if shown.peek().is_none() || shown.any(|t| *t == tab.name) {
                        continue;
                    }
                    let name = strip_mark(&tab.name).to_owned();
                    if !has_mark(&tab.name) {
                        let put = marked(&name);
                        tab.rename(put.clone(), Echo::Exact(put), fx);
                    }
                    // (Else another instance, the leader before this one, marked it.)
                    tab.marked = Some(name);
                }
            }
        }
    }
}

/// `name` with our mark.
fn marked(name: &str) -> String {
    format!("{TITLE_MARK}{name}")
}

fn has_mark(name: &str) -> bool {
    name.starts_with(TITLE_MARK)
}
