//! Builds the first frame of a request the way the plugin does, on the host, so its cost can be
//! counted in instructions (`valgrind --tool=callgrind`), which the load on the machine does
//! not change: the pipe message read from Zellij's wire format, the questionnaire parsed and
//! accepted, the popup fitted to the dialog, the frame drawn and turned into terminal output.
//! Each step is a function of its own, so `callgrind_annotate --inclusive=yes` shows it.
//!
//! Then, as the plugin does while the user reads, what a key could show next is laid out ahead
//! (`lay_out_ahead`, a step per timer), and the worst key, `Down` to the next option and its
//! preview, is taken in (`key`), drawn (`key_draw`) and turned into output (`key_to_ansi`).
//! With `no-ahead` last, nothing is laid out ahead: the key as it was before.
//!
//! Run: `cargo run --release --example first_frame -- [four|one] [PREVIEW_BYTES] [ROWS COLS] [no-ahead]`
//! (default: the 4 × 4 worst case with 8 KiB previews, on the 42 × 160 display area of the
//! 160 × 45 terminal `benches/e2e_latency.sh` uses). `markdown PREVIEW_BYTES` draws what
//! `cargo bench --bench render`'s `first_frame/1MiB_preview` draws: a question whose focused
//! option has a preview of that size (over the payload limit for 1 MiB, so built directly), in
//! 120 × 40 cells.

#[path = "../src/protobuf_encode.rs"]
mod protobuf_encode;
#[path = "../benches/worst_case.rs"]
mod worst_case;

use ask_popup_plugin::broker::{
    Broker, Config, Effect, PipeIn, Source, AHEAD_STEP_MS, KEY_GUARD_MS,
};
use ask_popup_plugin::dialog::{Dialog, KeyName, KeyPress};
use ask_popup_plugin::popup::{popup_rect, PopupSize};
use ask_popup_plugin::view::{render, Chrome, Frame, Theme, ViewCache};
use ask_popup_plugin::wire::{read_message, WireMessage, WirePayload};
use protobuf_encode::{field, varint, wire_line};
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let case = args.first().map_or("four", String::as_str);
    let number =
        |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let bytes = number(1, 8192);
    let screen = (number(2, 42), number(3, 160));
    if case == "markdown" {
        let frame = preview_frame(&preview_dialog(bytes));
        eprintln!("markdown: {} bytes of terminal output", frame.len());
        return;
    }
    let payload = match case {
        "one" => worst_case::one_question(bytes),
        _ => worst_case::questionnaire(bytes),
    }
    .to_string();
    let wire = encode(&payload);
    eprintln!(
        "{case}: payload {} bytes, wire {} bytes",
        payload.len(),
        wire.len()
    );

    let mut broker = Broker::new(Config::default());
    let message = read_wire(&wire);
    let effects = receive(&mut broker, message);
    assert!(effects.contains(&Effect::Show), "the request is shown");
    let rect = fit(&mut broker, screen);
    let frame = draw(&mut broker, rect.height - 2, rect.width - 2);
    let ansi = to_ansi(frame);
    eprintln!(
        "popup {}×{}, frame {} lines, {} bytes of terminal output",
        rect.width,
        rect.height,
        frame.lines.len(),
        ansi.len()
    );
    // While the user reads: what a key could show next laid out ahead, a step per timer
    // (`ahead` as a plain `first_frame` run says, the key as before this was done).
    let ahead = !args.iter().any(|a| a == "no-ahead");
    let mut steps = 0;
    if ahead && !broker.frame_coming().is_empty() {
        while lay_out_ahead(&mut broker) {
            steps += 1;
        }
    }
    // The key guard's timer: the footer shows its hints, and keys count.
    broker.set_clock(broker.now_ms() + KEY_GUARD_MS);
    broker.timer();
    let _ = to_ansi(broker.render(rect.height - 2, rect.width - 2));
    // The worst key: Down, to the next option and its preview.
    let effects = key(&mut broker);
    assert!(effects.contains(&Effect::Render), "the key is drawn");
    let frame = key_draw(&mut broker, rect.height - 2, rect.width - 2);
    let ansi = key_to_ansi(frame);
    eprintln!(
        "{} steps laid out ahead; after Down: {} bytes of terminal output",
        steps + usize::from(ahead),
        ansi.len()
    );
    // As `benches/e2e_latency.sh` answers: Enter on the first question (its focused option
    // picked, the next tab shown), back to the Submit tab (Left twice), and the Enter that
    // submits (the one question's own Enter): what the broker does before the reply goes out
    // (`submit`).
    if case != "one" {
        let effects = pick(&mut broker);
        assert!(
            !effects.iter().any(|e| matches!(e, Effect::Reply { .. })),
            "answered before the Submit tab"
        );
        for _ in 0..2 {
            broker.key(KeyPress::plain(KeyName::Left));
        }
        let _ = to_ansi(broker.render(rect.height - 2, rect.width - 2));
    }
    let (reply, effects) = submit(&mut broker);
    eprintln!(
        "submitted: a reply of {} bytes, {effects} effects",
        reply.expect("the reply")
    );
}

/// Enter on a question: its focused option picked.
#[inline(never)]
fn pick(broker: &mut Broker) -> Vec<Effect> {
    black_box(broker.key(KeyPress::plain(KeyName::Enter)))
}

/// Enter on the Submit tab: the envelope built, the reply, the record, the broadcasts. The
/// reply's size and how many effects came.
#[inline(never)]
fn submit(broker: &mut Broker) -> (Option<usize>, usize) {
    let effects = black_box(broker.key(KeyPress::plain(KeyName::Enter)));
    let reply = effects.iter().find_map(|e| match e {
        Effect::Reply { output, .. } => Some(output.len()),
        _ => None,
    });
    (reply, effects.len())
}

/// One step of laying out ahead (a timer of the plugin's after a frame); whether more follow.
#[inline(never)]
fn lay_out_ahead(broker: &mut Broker) -> bool {
    broker.set_clock(broker.now_ms() + AHEAD_STEP_MS);
    let step = Effect::SetTimer(AHEAD_STEP_MS as f64 / 1000.0);
    black_box(broker.timer().contains(&step))
}

/// The key press (`Down`) taken in.
#[inline(never)]
fn key(broker: &mut Broker) -> Vec<Effect> {
    black_box(broker.key(KeyPress::plain(KeyName::Down)))
}

/// The frame after the key drawn (the layouts counted, so that it is not merged with `draw`).
#[inline(never)]
fn key_draw(broker: &mut Broker, rows: usize, cols: usize) -> &Frame {
    black_box(broker.layouts());
    black_box(broker.render(rows, cols))
}

/// The frame after the key as terminal output (its lines counted, so that it is not merged
/// with `to_ansi`).
#[inline(never)]
fn key_to_ansi(frame: &Frame) -> String {
    black_box(frame.lines.len());
    black_box(frame.to_ansi(&Theme::default()))
}

/// Zellij's pipe message, as the plugin reads it from its stdin.
#[inline(never)]
fn read_wire(wire: &str) -> WireMessage {
    black_box(read_message(wire.as_bytes(), usize::MAX).expect("a pipe message"))
}

/// The broker takes the question: parsed, validated, queued, shown.
#[inline(never)]
fn receive(broker: &mut Broker, message: WireMessage) -> Vec<Effect> {
    let WirePayload::Text(payload) = message.payload else {
        panic!("no payload");
    };
    black_box(broker.pipe(PipeIn {
        source: Source::Cli(message.cli_source_id.unwrap_or_default()),
        name: message.name,
        payload: Some(payload),
        args: message.args,
    }))
}

/// The popup fitted to the dialog (`Effect::Show` → `resize` in the plugin).
#[inline(never)]
fn fit(broker: &mut Broker, screen: (usize, usize)) -> ask_popup_plugin::popup::Rect {
    black_box(popup_rect(
        PopupSize::default(),
        screen,
        |cols, rows| broker.natural_height(cols, rows),
        None,
    ))
}

#[inline(never)]
fn draw(broker: &mut Broker, rows: usize, cols: usize) -> &Frame {
    black_box(broker.render(rows, cols))
}

#[inline(never)]
fn to_ansi(frame: &Frame) -> String {
    black_box(frame.to_ansi(&Theme::default()))
}

fn preview_dialog(bytes: usize) -> Dialog {
    Dialog::new(worst_case::with_previews(bytes))
}

#[inline(never)]
fn preview_frame(dialog: &Dialog) -> String {
    let chrome = Chrome::default();
    let mut cache = ViewCache::new();
    render(dialog, &mut cache, &chrome, 120, 40).to_ansi(&Theme::default())
}

/// A CLI pipe message in Zellij's wire format: its protobuf encoding as a JSON list of bytes.
fn encode(payload: &str) -> String {
    let mut m = Vec::new();
    varint(1 << 3, &mut m);
    varint(0, &mut m);
    field(2, b"pipe-1", &mut m);
    field(4, b"ask", &mut m);
    field(5, format!("{payload}\n").as_bytes(), &mut m);
    for (k, v) in [("id", "r1"), ("agent", "bench")] {
        let mut arg = Vec::new();
        field(1, k.as_bytes(), &mut arg);
        field(2, v.as_bytes(), &mut arg);
        field(6, &arg, &mut m);
    }
    wire_line(&m)
}
