//! Why setup left a settings file alone.

/// Why the settings file was left alone.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SetupError {
    #[error("it is not valid JSON ({0}); fix or move it, then run this again")]
    NotJson(String),
    #[error(
        "`{0}` in it is not of the kind the agent expects (an object, a list or a table); add the entry by hand"
    )]
    Unexpected(&'static str),
    #[error("it is not valid TOML ({0}); fix or move it, then run this again")]
    NotToml(String),
    #[error("it is not valid JSON with comments ({0}); fix or move it, then run this again")]
    NotJsonc(String),
    #[error(
        "`{0}` in it is not one setup wrote (it does not run an `ask-popup` executable with `mcp`): left it alone; rename or take it out, then run this again"
    )]
    NotOurs(&'static str),
    #[error(
        "the entry cannot go into it so that `--remove` gives the file back byte for byte (an empty `mcp` or root object would go with it); add it by hand:\n{0}"
    )]
    NotReversible(String),
}
