//! Laying out a payload's text takes memory in proportion to what can be shown, not to the
//! text: Zellij gives the plugin 16 MiB and up to 8 MiB of it may hold the questionnaires that
//! wait, so no 1 MiB text, however it is made, may take more than a little of the rest
//! (about 2 MiB at most, in the costliest markdown at 200 columns).
//! (Memory is counted by a counting allocator: each block's size and a word of the
//! allocator's own.)

mod support;

use ask_popup_plugin::dialog::{Dialog, Input, Key};
use ask_popup_plugin::view::{lay_out_ahead, limit, markdown, render, Chrome, ViewCache};
use serde_json::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use support::questionnaire;

struct Counting;

thread_local! {
    /// This thread's memory in use, and the most since the measurement began (each test's
    /// own: the tests run side by side).
    static NOW: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let size = layout.size() as isize + 8;
        let _ = NOW.try_with(|now| {
            now.set(now.get() + size);
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now.get())));
        });
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let size = layout.size() as isize + 8;
        let _ = NOW.try_with(|now| now.set(now.get() - size));
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const MIB: usize = 1024 * 1024;

/// The most memory `f` had in use at once beyond what was in use before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = NOW.with(Cell::get);
    PEAK.with(|peak| peak.set(before));
    let out = f();
    (out, (PEAK.with(Cell::get) - before).max(0) as usize)
}

/// Texts of about 1 MiB, each made of what costs the most per byte.
fn costly_texts() -> Vec<(&'static str, String)> {
    let fill = |unit: &str| unit.repeat(MIB / unit.len());
    vec![
        ("one long word", fill("p")),
        ("short code lines", format!("```\n{}```\n", fill("a\n"))),
        ("paragraphs", fill("a\n\n")),
        ("styled words", fill("*a* _b_ `c` ")),
        ("links", fill("[a](b) ")),
        (
            "table",
            format!("|a|b|c|\n|-|-|-|\n{}", fill("|a|*b*|c|\n")),
        ),
        ("list", fill("- a\n")),
        ("nested", fill("> - > a\n")),
        ("headings", fill("# a\n")),
        ("wide characters", fill("設計 ")),
    ]
}

#[test]
fn no_text_takes_more_than_two_and_a_half_mib_to_lay_out() {
    for (name, text) in costly_texts() {
        for width in [20, 100, 200] {
            let (lines, peak) = peak_of(|| markdown::render(&text, width));
            assert!(
                peak < 5 * MIB / 2,
                "{name} at {width} columns: {:.1} MiB",
                peak as f64 / MIB as f64
            );
            let last = lines.last().map(|l| l.plain()).unwrap_or_default();
            assert!(
                last.starts_with("… the rest"),
                "{name} at {width} columns ends with {last:?}"
            );
            assert!(lines.len() <= limit::MAX_LINES + 1);
        }
    }
}

#[test]
fn a_text_that_fits_is_laid_out_whole() {
    let text = "line of text\n\n".repeat(500);
    let lines = markdown::render(&text, 80);
    assert_eq!(lines.len(), 999);
    assert!(lines.iter().all(|l| !l.plain().contains("not shown")));
}

#[test]
fn a_questionnaire_of_long_previews_is_held_laid_out_in_little_memory() {
    // Four questions of four options with a preview of 50 KiB of short lines each: about
    // 1 MiB, as much as a request may carry.
    let preview = "- a point\n".repeat(5 * 1024);
    let question = |n: usize| {
        json!({"question": format!("{} {n}?", "Which one ".repeat(2000)), "header": format!("Q{n}"),
            "options": (0..4).map(|o| json!({"label": format!("O{o}"), "description": "d".repeat(4000),
                "preview": preview})).collect::<Vec<_>>()})
    };
    let q = questionnaire(json!({"questions": (0..4).map(question).collect::<Vec<_>>()}));
    let chrome = Chrome {
        banner: Some("bench asks".into()),
        hide_key: None,
        settling: false,
    };
    let mut dialog = Dialog::new(q);
    let ((), peak) = peak_of(|| {
        let mut cache = ViewCache::new();
        render(&dialog, &mut cache, &chrome, 200, 50);
        while lay_out_ahead(&mut dialog, &mut cache, &chrome, 200, 50) {}
        // Every option and tab shown, as a user reading them all would.
        for _ in 0..4 {
            for _ in 0..4 {
                dialog.handle(Input::Key(Key::Down));
                render(&dialog, &mut cache, &chrome, 200, 50);
            }
            dialog.handle(Input::Key(Key::Tab));
            render(&dialog, &mut cache, &chrome, 200, 50);
        }
        drop(cache);
    });
    assert!(peak < 4 * MIB, "{:.1} MiB", peak as f64 / MIB as f64);
}
