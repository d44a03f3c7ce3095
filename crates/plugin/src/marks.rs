//! The waiting mark on callers' pane titles: put on while a pane's agent waits, taken off
//! after, and never doubled.
//!
//! Zellij shows a pane's explicit name when it has one, else the title its program set, else
//! its command. Marking sets the explicit name (`⏳ title`). Restoring clears it again, so a
//! program's own later titles show as before; when the title that comes back is not the one
//! the pane had, its name was explicit (from a layout or the user), and that name is set back
//! (and later restored directly).
//!
//! Zellij reports every rename in a pane update, in order, but late: updates sent before a
//! rename took effect still arrive after it was asked for. So each rename's echo is awaited,
//! and what comes before it is not taken as the pane's title. Titles never keep our mark.

use crate::effect::Effect;
use std::collections::{HashMap, VecDeque};

/// The mark put in front of a waiting caller's pane title.
pub use ask_popup_protocol::TITLE_MARK;
/// Updates that may pass without an awaited echo before it is given up on (should Zellij
/// ever fold two renames into one update).
const PATIENCE: u32 = 32;

/// `title` without any number of our marks in front.
pub fn strip_mark(mut title: &str) -> &str {
    while let Some(rest) = title.strip_prefix(TITLE_MARK) {
        title = rest;
    }
    title
}

/// How a rename of ours will show in a pane update.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Echo {
    /// Exactly this title.
    Exact(String),
    /// The name was cleared: whatever title shows without it (never with our mark).
    Cleared,
}

/// One pane's title as the plugin knows it.
#[derive(Clone, Debug, Default)]
struct PaneTitle {
    /// Its real title (never with our mark), once known.
    title: Option<String>,
    /// While marked: the title the mark was put on.
    marked: Option<String>,
    /// Whether its name is explicit (learnt when clearing our mark showed another title).
    explicit: bool,
    /// Renames of ours that the host has not reported yet, oldest first.
    echoes: VecDeque<Echo>,
    /// Updates seen while waiting for the oldest echo.
    waited: u32,
}

/// What the plugin knows about terminal panes' titles, and which carry our mark.
#[derive(Clone, Debug, Default)]
pub struct PaneMarks {
    panes: HashMap<u32, PaneTitle>,
}

impl PaneMarks {
    /// The pane's title as the user knows it, without our mark.
    pub fn title(&self, pane: u32) -> Option<&str> {
        let p = self.panes.get(&pane)?;
        p.marked.as_deref().or(p.title.as_deref())
    }

    /// Puts the mark on `pane`, once its title is known (without it the title could not be
    /// restored).
    pub fn mark(&mut self, pane: u32, fx: &mut Vec<Effect>) {
        let Some(p) = self.panes.get_mut(&pane) else {
            return;
        };
        if p.marked.is_some() {
            return;
        }
        let Some(title) = p.title.clone() else {
            return;
        };
        let marked = format!("{TITLE_MARK}{title}");
        p.echoes.push_back(Echo::Exact(marked.clone()));
        fx.push(Effect::RenamePane {
            pane,
            title: marked,
        });
        p.marked = Some(title);
    }

    /// Takes the mark off `pane`: its explicit name back, or no name at all.
    pub fn unmark(&mut self, pane: u32, fx: &mut Vec<Effect>) {
        let Some(p) = self.panes.get_mut(&pane) else {
            return;
        };
        let Some(title) = p.marked.take() else {
            return;
        };
        if p.explicit {
            p.echoes.push_back(Echo::Exact(title.clone()));
            fx.push(Effect::RenamePane { pane, title });
        } else {
            p.echoes.push_back(Echo::Cleared);
            fx.push(Effect::RenamePane {
                pane,
                title: String::new(),
            });
            // Until the host says otherwise, the title is what it was.
            p.title = Some(title);
        }
    }

    /// The host reported `pane`'s title.
    pub fn update(&mut self, pane: u32, title: &str, fx: &mut Vec<Effect>) {
        let p = self.panes.entry(pane).or_default();
        let real = strip_mark(title);
        let ours = real.len() != title.len();
        if let Some(echo) = p.echoes.front() {
            let arrived = match echo {
                Echo::Exact(expected) => expected == title,
                Echo::Cleared => !ours,
            };
            if !arrived {
                // An update from before our rename took effect.
                p.waited += 1;
                if p.waited > PATIENCE {
                    p.echoes.clear();
                    p.waited = 0;
                }
                return;
            }
            p.waited = 0;
            let cleared = p.echoes.pop_front() == Some(Echo::Cleared);
            if cleared {
                let before = p.title.clone().unwrap_or_default();
                if real != before {
                    // The pane had an explicit name: set it back.
                    p.explicit = true;
                    if p.marked.is_none() {
                        p.echoes.push_back(Echo::Exact(before.clone()));
                        fx.push(Effect::RenamePane {
                            pane,
                            title: before,
                        });
                    }
                    return;
                }
            }
            if !p.echoes.is_empty() || ours {
                return;
            }
        }
        if let Some(marked) = &p.marked {
            if !ours && real != marked {
                // The user renamed the pane while it waited: keep the new name, marked.
                let marked = format!("{TITLE_MARK}{real}");
                p.echoes.push_back(Echo::Exact(marked.clone()));
                fx.push(Effect::RenamePane {
                    pane,
                    title: marked,
                });
                p.marked = Some(real.to_owned());
                p.explicit = true;
            }
            return;
        }
        p.title = Some(real.to_owned());
    }

    /// The pane is gone.
    pub fn forget(&mut self, pane: u32) {
        self.panes.remove(&pane);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renames(fx: &[Effect]) -> Vec<(u32, String)> {
        fx.iter()
            .filter_map(|e| match e {
                Effect::RenamePane { pane, title } => Some((*pane, title.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_title_with_our_mark_is_never_taken_as_the_real_one() {
        let mut marks = PaneMarks::default();
        let mut fx = Vec::new();
        marks.update(1, "⏳ ⏳ bash", &mut fx);
        assert_eq!(marks.title(1), Some("bash"));
        marks.mark(1, &mut fx);
        assert_eq!(renames(&fx), [(1, "⏳ bash".to_owned())]);
    }

    #[test]
    fn restoring_clears_the_name_and_sets_back_an_explicit_one() {
        let mut marks = PaneMarks::default();
        let mut fx = Vec::new();
        marks.update(1, "agent-1", &mut fx);
        marks.mark(1, &mut fx);
        marks.unmark(1, &mut fx);
        assert_eq!(renames(&fx).last(), Some(&(1, String::new())));
        fx.clear();
        // Late updates: from before the mark, then the mark.
        marks.update(1, "agent-1", &mut fx);
        marks.update(1, "⏳ agent-1", &mut fx);
        assert!(fx.is_empty());
        // Clearing showed the program's title: the name was explicit, so it comes back.
        marks.update(1, "bash", &mut fx);
        assert_eq!(renames(&fx), [(1, "agent-1".to_owned())]);
        fx.clear();
        marks.update(1, "agent-1", &mut fx);
        assert!(fx.is_empty());
        // The next time it is restored directly.
        marks.mark(1, &mut fx);
        marks.unmark(1, &mut fx);
        assert_eq!(renames(&fx).last(), Some(&(1, "agent-1".to_owned())));
    }

    #[test]
    fn a_program_title_stays_unpinned() {
        let mut marks = PaneMarks::default();
        let mut fx = Vec::new();
        marks.update(1, "bash", &mut fx);
        marks.mark(1, &mut fx);
        marks.update(1, "⏳ bash", &mut fx);
        marks.unmark(1, &mut fx);
        fx.clear();
        marks.update(1, "bash", &mut fx);
        marks.update(1, "vim", &mut fx);
        assert!(fx.is_empty());
        assert_eq!(marks.title(1), Some("vim"));
    }
}
