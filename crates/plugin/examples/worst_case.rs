//! Prints the benchmarks' worst-case questionnaire (`benches/worst_case.rs`) as one JSON line,
//! for `benches/e2e_latency.sh`. Run: `cargo run --example worst_case -- [PREVIEW_BYTES] [one]`
//! (default 8192): the 4 × 4 questionnaire, or with `one` the 1-question one (4 options, a
//! preview on each).

#[path = "../benches/worst_case.rs"]
mod worst_case;

fn main() {
    let bytes = std::env::args()
        .nth(1)
        .map(|arg| arg.parse().expect("PREVIEW_BYTES is a number"))
        .unwrap_or(8192);
    let questionnaire = match std::env::args().nth(2).as_deref() {
        Some("one") => worst_case::one_question(bytes),
        _ => worst_case::questionnaire(bytes),
    };
    println!("{questionnaire}");
}
