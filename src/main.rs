//! The `ask-popup` command: what it decides is the library (`ask_popup`), what it does
//! (running `zellij`, signals, stdio, files) is `run/`.

mod run;

fn main() {
    std::process::exit(run::main());
}
