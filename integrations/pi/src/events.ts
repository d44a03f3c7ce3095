// Event channels of pi-ask-popup on Pi's event bus (`pi.events`), for other extensions:
//
//   import { ASK_POPUP_BLOCKED_EVENT, type AskPopupBlockedEventPayload } from "pi-ask-popup/events";
//   pi.events.on(ASK_POPUP_BLOCKED_EVENT, (data) => { const { active } = data as AskPopupBlockedEventPayload; });
//
// Channel names are stable; payload changes are append-only and optional, and a breaking change
// ships as a new channel.

/** Fires once, after validation, before the questions are shown. */
export const ASK_POPUP_PROMPT_EVENT = "pi-ask-popup:prompt" as const;
/** `{ active: true }` when Pi starts waiting on the user (one of our questionnaires, or any
 * `ctx.ui` dialog of any extension: Pi's `ui_prompt_start`), `{ active: false }` when nothing is
 * left waiting. Overlapping waits make one pair. */
export const ASK_POPUP_BLOCKED_EVENT = "pi-ask-popup:blocked" as const;
/** The same payload at the same points, for Herdr's Pi integration (waiting-for-input mark). */
export const HERDR_BLOCKED_EVENT = "herdr:blocked" as const;

export type AskPopupPromptEventPayload = {
  questions: {
    question: string;
    header: string;
    multiSelect: boolean;
    options: {
      label: string;
      description: string;
      /** Whether the option carries a preview; the preview itself is not shipped. */
      hasPreview: boolean;
    }[];
  }[];
};

export type AskPopupBlockedEventPayload = {
  active: boolean;
};
