//! What the plugin must do, as data: the broker decides effects, `instance.rs` executes them, and
//! the marks on pane titles and tab names (`marks.rs`, `tab_marks.rs`) make them too. Below
//! both, so imports run one way.

/// What the plugin must do.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Hold the CLI pipe open.
    Block(String),
    /// Write `output` to the CLI pipe's stdout, then release it.
    Reply { pipe: String, output: String },
    /// A message to every plugin.
    Broadcast { name: String, payload: String },
    /// A message to this plugin's other instances (`PEER_PIPE`).
    Peer(String),
    /// Nothing to do but say so in the trace: a message named as the instances' own
    /// (`PEER_PIPE`) came from elsewhere, from plugin `from_plugin` (None: a keybinding), and
    /// was ignored.
    IgnoredPeerMessage { from_plugin: Option<u32> },
    /// Set a terminal pane's title (an empty title clears the name the plugin gave it).
    RenamePane { pane: u32, title: String },
    /// Name the tab of this id (`tab_marks.rs`).
    RenameTab { tab: u32, name: String },
    /// Set the popup's own pane title.
    SetOwnTitle(String),
    /// Show the popup (focused, floating), fitted to the dialog.
    Show,
    /// Show the popup where it is, unfitted: the pane is one for every client, and while the
    /// instances have not heard each other yet the one of the lowest client id fits it (each
    /// resize has Zellij tell every plugin of every client).
    ShowAsPlaced,
    /// Hide the popup.
    Hide,
    /// Ask Zellij for the plugin's permissions (again: see `broker::GRANT_SILENCE_MS`).
    RequestPermission,
    /// Ask for a timer event after this many seconds.
    SetTimer(f64),
    /// Draw a new frame.
    Render,
    /// The dialog may have grown (another tab, an editor opened): fit the popup to it.
    Fit,
    /// Another request is shown: fit the popup to it afresh (it may shrink).
    FitAnew,
    /// Append this line to the record of questionnaires (`ask_popup_protocol::history`).
    Record(String),
    /// Read the record and hand its entries to `Broker::history_loaded`, to list them.
    OpenHistory,
    /// Take this client to the session of this name (`Command::SwitchSession`).
    SwitchSession(String),
    /// The popup is closing and the plugin unloads: keep this text where the next instance of
    /// this session finds it, for a minute, and hand it to `Broker::recall` when it loads.
    KeepAcrossReload(String),
    /// What a closing instance kept (`KeepAcrossReload`) is read back by the instance that
    /// answers its callers: delete it.
    ForgetKeptAcrossReload,
}
