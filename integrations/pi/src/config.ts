// The optional config file: $XDG_CONFIG_HOME/pi-ask-popup/config.json (default
// ~/.config/pi-ask-popup/config.json). A missing or invalid file means the defaults.
//
//   { "command": "/path/to/ask-popup", "guidance": { "description": "…" } }
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export type Config = {
  /** The `ask-popup` command to run (ASK_POPUP_COMMAND wins over it). */
  command?: string;
  /** Replaces the tool description the model reads. */
  description?: string;
};

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.trim() !== "" ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(base, "pi-ask-popup", "config.json");
}

export function loadConfig(path: string = configPath()): Config {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return {};
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return {};
  const file = raw as { command?: unknown; guidance?: { description?: unknown } };
  const config: Config = {};
  if (typeof file.command === "string" && file.command.trim() !== "") config.command = file.command;
  const description = typeof file.guidance === "object" && file.guidance !== null ? file.guidance.description : undefined;
  if (typeof description === "string" && description.trim() !== "") config.description = description;
  return config;
}

/** The command to ask through: $ASK_POPUP_COMMAND, else the config file's `command`, else `ask-popup`. */
export function commandOf(config: Config, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.ASK_POPUP_COMMAND;
  if (fromEnv !== undefined && fromEnv.trim() !== "") return fromEnv;
  return config.command ?? "ask-popup";
}
