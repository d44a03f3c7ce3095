//! Frame rendering on the host: the first frame of a request (which lays out markdown) and the
//! frame after a key press, for the worst-case questionnaire, the first frame of the 1-question
//! one (4 options, an 8 KiB preview each), and the key-press frame with small and huge
//! previews. Run: `cargo bench --bench render`.

mod worst_case;

use ask_popup_plugin::dialog::{Dialog, Input, Key};
use ask_popup_plugin::view::{render, Chrome, Theme, ViewCache};
use ask_popup_protocol::request::{parse, Questionnaire};
use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};

fn chrome() -> Chrome {
    Chrome {
        banner: Some("claude asks · 1 of 3 waiting · [ ] switch".into()),
        hide_key: Some("Ctrl+]".into()),
        settling: false,
    }
}

fn worst() -> Questionnaire {
    let json = worst_case::questionnaire(60 * 1024).to_string();
    eprintln!("worst-case payload: {} bytes", json.len());
    parse(&json).expect("the worst case is a valid questionnaire")
}

/// Render + terminal output, as the plugin does per frame.
fn frame(
    d: &Dialog,
    cache: &mut ViewCache,
    chrome: &Chrome,
    theme: &Theme,
    w: usize,
    h: usize,
) -> usize {
    render(d, cache, chrome, w, h).to_ansi(theme).len()
}

fn bench_first_frame(c: &mut Criterion) {
    let q = worst();
    let chrome = chrome();
    let theme = Theme::default();
    for (w, h) in [(120, 40), (80, 24)] {
        c.bench_function(&format!("first_frame/worst_case/{w}x{h}"), |b| {
            b.iter_batched(
                || Dialog::new(q.clone()),
                |d| {
                    let mut cache = ViewCache::new();
                    black_box(frame(&d, &mut cache, &chrome, &theme, w, h))
                },
                BatchSize::LargeInput,
            )
        });
    }
    let json = worst_case::one_question(8 * 1024).to_string();
    let one = parse(&json).expect("the 1-question worst case is a valid questionnaire");
    c.bench_function("first_frame/one_question_8KiB_previews/120x40", |b| {
        b.iter_batched(
            || Dialog::new(one.clone()),
            |d| {
                let mut cache = ViewCache::new();
                black_box(frame(&d, &mut cache, &chrome, &theme, 120, 40))
            },
            BatchSize::LargeInput,
        )
    });
    // Markdown layout cost per MiB: the focused option carries 1 MiB of markdown.
    let big = worst_case::with_previews(1024 * 1024);
    c.bench_function("first_frame/1MiB_preview/120x40", |b| {
        b.iter_batched(
            || Dialog::new(big.clone()),
            |d| {
                let mut cache = ViewCache::new();
                black_box(frame(&d, &mut cache, &chrome, &theme, 120, 40))
            },
            BatchSize::LargeInput,
        )
    });
}

/// A key press and the frame that shows it, with every layout already cached.
fn keypress(c: &mut Criterion, name: &str, q: Questionnaire, w: usize, h: usize) {
    let chrome = chrome();
    let theme = Theme::default();
    let mut d = Dialog::new(q);
    let mut cache = ViewCache::new();
    // Warm the cache: visit every option once.
    for _ in 0..8 {
        d.handle(Input::Key(Key::Down));
        frame(&d, &mut cache, &chrome, &theme, w, h);
    }
    let mut down = true;
    c.bench_function(name, |b| {
        b.iter(|| {
            // Between the first two options, both previews cached.
            d.handle(Input::Key(if down { Key::Down } else { Key::Up }));
            down = !down;
            black_box(frame(&d, &mut cache, &chrome, &theme, w, h))
        })
    });
}

fn bench_keypress(c: &mut Criterion) {
    let q = worst();
    keypress(c, "keypress_frame/worst_case/120x40", q.clone(), 120, 40);
    keypress(c, "keypress_frame/worst_case/80x24", q, 80, 24);
    keypress(
        c,
        "keypress_frame/1KiB_previews/120x40",
        worst_case::with_previews(1024),
        120,
        40,
    );
    keypress(
        c,
        "keypress_frame/1MiB_previews/120x40",
        worst_case::with_previews(1024 * 1024),
        120,
        40,
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(3));
    targets = bench_first_frame, bench_keypress
}
criterion_main!(benches);
