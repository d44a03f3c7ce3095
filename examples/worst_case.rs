//! Prints the benchmarks' worst-case questionnaire (`benches/worst_case.rs`) as one JSON line,
//! for `benches/e2e_latency.sh`. Run: `cargo run --example worst_case -- [PREVIEW_BYTES]`
//! (default 8192).

#[path = "../benches/worst_case.rs"]
mod worst_case;

fn main() {
    let bytes = std::env::args()
        .nth(1)
        .map(|arg| arg.parse().expect("PREVIEW_BYTES is a number"))
        .unwrap_or(8192);
    println!("{}", worst_case::questionnaire(bytes));
}
