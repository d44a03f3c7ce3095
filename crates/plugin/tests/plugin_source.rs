//! The plugin must not panic on the way out: a panicking plugin strands every agent waiting on
//! it. zellij-tile's helpers for host calls unwrap their encoding and write it with
//! `println!`, which panics when the write fails (`get_plugin_ids` unwraps its answer too), so
//! src/main.rs sends the commands the library makes (`zellij_command`) through its own `send`,
//! and writes its frames with `write_all`. This test reads src/main.rs, and the library's files
//! that turn Zellij's input into those commands and write the plugin's files (`GLUE`), as text
//! and fails on what would bring a panic back, outside comments and string literals.

/// The plugin's glue: its wasm entry point, and what it hands Zellij's input to.
const GLUE: &[&str] = &[
    "src/main.rs",
    "src/instance.rs",
    "src/shared_folder.rs",
    "src/trace.rs",
];

/// zellij-tile 0.45.1's helpers (src/shim.rs) that go through its `object_to_stdout`.
const SHIM_HELPERS: &[&str] = &[
    "subscribe",
    "unsubscribe",
    "set_selectable",
    "show_cursor",
    "request_permission",
    "get_plugin_ids",
    "get_zellij_version",
    "generate_random_name",
    "dump_layout",
    "get_layout_dir",
    "get_session_environment_variables",
    "get_focused_pane_info",
    "get_pane_info",
    "get_tab_info",
    "save_session",
    "current_session_last_saved_time",
    "open_file",
    "open_file_floating",
    "open_file_in_place",
    "open_file_near_plugin",
    "open_file_floating_near_plugin",
    "open_file_in_place_of_plugin",
    "open_terminal",
    "open_terminal_near_plugin",
    "open_terminal_floating",
    "open_terminal_floating_near_plugin",
    "open_terminal_in_place",
    "open_terminal_in_place_of_plugin",
    "open_command_pane",
    "open_command_pane_near_plugin",
    "open_command_pane_floating",
    "open_command_pane_floating_near_plugin",
    "open_command_pane_in_place",
    "open_command_pane_in_place_of_plugin",
    "open_command_pane_in_place_of_pane_id",
    "open_terminal_pane_in_place_of_pane_id",
    "open_edit_pane_in_place_of_pane_id",
    "open_command_pane_background",
    "switch_tab_to",
    "set_timeout",
    "exec_cmd",
    "run_command",
    "run_command_with_env_variables_and_cwd",
    "web_request",
    "hide_self",
    "hide_pane_with_id",
    "show_self",
    "show_pane_with_id",
    "close_self",
    "switch_to_input_mode",
    "new_tabs_with_layout",
    "new_tabs_with_layout_info",
    "new_tab",
    "new_tab_unfocused",
    "new_tiled_pane_in_tab",
    "open_command_pane_in_new_tab",
    "open_plugin_pane_in_new_tab",
    "open_plugin_pane_floating",
    "open_editor_pane_in_new_tab",
    "go_to_next_tab",
    "go_to_previous_tab",
    "report_panic",
    "resize_focused_pane",
    "resize_focused_pane_with_direction",
    "focus_next_pane",
    "focus_previous_pane",
    "focus_last_pane",
    "move_focus",
    "move_focus_or_tab",
    "detach",
    "edit_scrollback",
    "write",
    "write_chars",
    "copy_to_clipboard",
    "toggle_tab",
    "move_pane",
    "move_pane_with_direction",
    "clear_screen",
    "scroll_up",
    "scroll_down",
    "scroll_to_top",
    "scroll_to_bottom",
    "page_scroll_up",
    "page_scroll_down",
    "toggle_focus_fullscreen",
    "toggle_focus_no_ui_fullscreen",
    "focus_host_session",
    "toggle_pane_frames",
    "set_pane_frame_style",
    "toggle_pane_embed_or_eject",
    "undo_rename_pane",
    "close_focus",
    "new_pane",
    "toggle_floating_panes",
    "toggle_active_tab_sync",
    "close_focused_tab",
    "undo_rename_tab",
    "quit_zellij",
    "previous_swap_layout",
    "next_swap_layout",
    "go_to_tab_name",
    "focus_or_create_tab",
    "go_to_tab",
    "start_or_reload_plugin",
    "close_terminal_pane",
    "close_plugin_pane",
    "focus_terminal_pane",
    "focus_plugin_pane",
    "rename_terminal_pane",
    "rename_plugin_pane",
    "rename_tab",
    "rename_tab_with_id",
    "switch_session",
    "switch_session_with_layout",
    "switch_session_with_cwd",
    "switch_session_with_focus",
    "delete_dead_session",
    "delete_all_dead_sessions",
    "rename_session",
    "unblock_cli_pipe_input",
    "block_cli_pipe_input",
    "cli_pipe_output",
    "pipe_message_to_plugin",
    "disconnect_other_clients",
    "kill_sessions",
    "list_windows_volumes",
    "scan_host_folder",
    "set_soft_keyboard",
    "watch_filesystem",
    "dump_session_layout_for_tab",
    "parse_layout",
    "list_clients",
    "reconfigure",
    "rerun_command_pane",
    "close_pane_with_id",
    "resize_pane_with_id",
    "focus_pane_with_id",
    "edit_scrollback_for_pane_with_id",
    "get_pane_scrollback",
    "write_to_pane_id",
    "write_chars_to_pane_id",
    "send_sigint_to_pane_id",
    "send_sigkill_to_pane_id",
    "get_pane_pid",
    "get_pane_running_command",
    "get_session_list",
    "get_pane_cwd",
    "save_layout",
    "delete_layout",
    "rename_layout",
    "edit_layout",
    "move_pane_with_pane_id",
    "move_pane_with_pane_id_in_direction",
    "clear_screen_for_pane_id",
    "scroll_up_in_pane_id",
    "scroll_down_in_pane_id",
    "scroll_to_top_in_pane_id",
    "scroll_to_bottom_in_pane_id",
    "page_scroll_up_in_pane_id",
    "page_scroll_down_in_pane_id",
    "toggle_pane_id_fullscreen",
    "toggle_pane_embed_or_eject_for_pane_id",
    "close_tab_with_index",
    "close_tab_with_id",
    "rename_pane_with_id",
    "break_panes_to_new_tab",
    "break_panes_to_tab_with_index",
    "break_panes_to_tab_with_id",
    "reload_plugin_with_id",
    "load_new_plugin",
    "rebind_keys",
    "change_host_folder",
    "set_floating_pane_pinned",
    "stack_panes",
    "change_floating_panes_coordinates",
    "toggle_pane_borderless",
    "set_pane_borderless",
    "set_pane_color",
    "start_web_server",
    "stop_web_server",
    "query_web_server_status",
    "share_current_session",
    "stop_sharing_current_session",
    "group_and_ungroup_panes",
    "highlight_and_unhighlight_panes",
    "close_multiple_panes",
    "float_multiple_panes",
    "embed_multiple_panes",
    "set_self_mouse_selection_support",
    "generate_web_login_token",
    "revoke_web_login_token",
    "list_web_login_tokens",
    "revoke_all_web_tokens",
    "rename_web_token",
    "intercept_key_presses",
    "clear_key_presses_intercepts",
    "replace_pane_with_existing_pane",
    "override_layout",
    "post_message_to",
    "post_message_to_plugin",
    "run_action",
    "show_floating_panes",
    "hide_floating_panes",
    "set_pane_regex_highlights",
    "clear_pane_highlights",
    "dump_session_layout",
    "dump_session_layout_for_tab",
    "object_to_stdout",
];

/// What panics where it fails, on input or output from outside.
const PANICKING: &[&str] = &[
    "unwrap(",
    "expect(",
    "print!",
    "println!",
    "eprint!",
    "eprintln!",
    "dbg!",
];

/// The text of `src` with its comments and the contents of its string and character literals
/// blanked out (line breaks kept, so line numbers still count).
fn code_only(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    // Blanks chars[from..to], keeping line breaks.
    let blank = |out: &mut String, from: usize, to: usize| {
        for c in chars.get(from..to.min(chars.len())).unwrap_or_default() {
            out.push(if *c == '\n' { '\n' } else { ' ' });
        }
    };
    while i < chars.len() {
        let c = at(i);
        let ident_before = i > 0 && (at(i - 1).is_alphanumeric() || at(i - 1) == '_');
        if c == '/' && at(i + 1) == '/' {
            let end = (i..chars.len())
                .find(|&j| at(j) == '\n')
                .unwrap_or(chars.len());
            blank(&mut out, i, end);
            i = end;
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            let mut j = i;
            while j < chars.len() {
                if at(j) == '/' && at(j + 1) == '*' {
                    depth += 1;
                    j += 2;
                } else if at(j) == '*' && at(j + 1) == '/' {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if c == 'r' && !ident_before && (at(i + 1) == '"' || at(i + 1) == '#') {
            // A raw string: r"…", r#"…"#, …
            let hashes = (i + 1..chars.len()).take_while(|&j| at(j) == '#').count();
            if at(i + 1 + hashes) != '"' {
                out.push(c);
                i += 1;
                continue;
            }
            let body = i + 2 + hashes;
            let closing = |j: usize| at(j) == '"' && (1..=hashes).all(|k| at(j + k) == '#');
            let end = (body..chars.len())
                .find(|&j| closing(j))
                .unwrap_or(chars.len());
            out.push_str("r\"");
            blank(&mut out, body, end);
            out.push('"');
            i = end + 1 + hashes;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && at(j) != '"' {
                j += if at(j) == '\\' { 2 } else { 1 };
            }
            out.push('"');
            blank(&mut out, i + 1, j);
            out.push('"');
            i = j + 1;
        } else if c == '\'' && (at(i + 1) == '\\' || at(i + 2) == '\'') {
            // A character literal ('x', '\n', '\u{…}'); otherwise a lifetime.
            let from = if at(i + 1) == '\\' { i + 3 } else { i + 2 };
            let end = (from..chars.len())
                .find(|&j| at(j) == '\'')
                .unwrap_or(chars.len());
            out.push_str("' '");
            i = end + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every place in `src` that could panic on the way out, as `line: what`.
fn findings(src: &str) -> Vec<String> {
    let code = code_only(src);
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let n = n + 1;
        for bad in PANICKING {
            for (at, _) in line.match_indices(bad) {
                let whole = !line[..at].ends_with(is_ident);
                if whole {
                    found.push(format!("{n}: {bad}"));
                }
            }
        }
        for name in SHIM_HELPERS {
            for (at, _) in line.match_indices(name) {
                let before = &line[..at];
                let after = &line[at + name.len()..];
                if before.ends_with(is_ident) || after.starts_with(is_ident) {
                    continue; // Part of a longer name.
                }
                if before.ends_with('.') || after.starts_with('!') {
                    continue; // A method, or a macro (`write!`).
                }
                if before.trim_end().ends_with("fn") {
                    continue; // The plugin's own function of that name.
                }
                if let Some(path) = before.strip_suffix("::") {
                    let segment: String = path
                        .chars()
                        .rev()
                        .take_while(|c| is_ident(*c))
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    if !matches!(segment.as_str(), "shim" | "prelude" | "zellij_tile") {
                        continue; // Another module's function (`log_line::write`).
                    }
                }
                found.push(format!("{n}: {name}"));
            }
        }
    }
    found
}

#[test]
fn the_plugin_calls_no_helper_that_panics_on_output_and_unwraps_nothing() {
    for file in GLUE {
        let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
        let src = std::fs::read_to_string(&path).expect(file);
        let found = findings(&src);
        assert!(found.is_empty(), "{file}, line: what\n{}", found.join("\n"));
    }
}

#[test]
fn the_check_finds_what_it_looks_for_in_code_and_nothing_in_comments_or_strings() {
    let code = r##"
        fn load() {
            let ids = get_plugin_ids();
            show_self(true);
            zellij_tile::prelude::hide_self();
            std::panic::set_hook(Box::new(report_panic));
            let n = text.parse::<u32>().unwrap();
            println!("{n}");
            x.expect("y");
        }
    "##;
    let found = findings(code);
    assert_eq!(
        found,
        [
            "3: get_plugin_ids",
            "4: show_self",
            "5: hide_self",
            "6: report_panic",
            "7: unwrap(",
            "8: println!",
            "9: expect(",
        ],
        "{found:?}"
    );
    let harmless = r###"
        // show_self(true); x.unwrap(); println!("")
        /* hide_self() /* nested */ print!("") */
        /// Unlike zellij-tile's `subscribe(…)`, never `expect(…)`s.
        fn subscribe(events: &[u8]) {}
        let text = "println!(\"unwrap()\") \" set_timeout(1.0)";
        let raw = r#"hide_self() " unwrap()"#;
        let c = '"'; let d = '\''; let e: &'static str = "";
        log_line::write(format_args!("{c}"));
        out.write_all(b"x").unwrap_or(());
        write!(out, "x").ok();
        x.unwrap_or_default();
        plugin::report_panic(info);
    "###;
    assert_eq!(findings(harmless), Vec::<String>::new());
}
