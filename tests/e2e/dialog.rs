//! End to end: one agent asks, the user answers through the real dialog.
