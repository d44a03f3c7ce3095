//! The `ask-popup` command: everything it does is the library (`ask_popup`), entered by its
//! arguments (`crate::cli`).

fn main() {
    std::process::exit(ask_popup::cli::main());
}
