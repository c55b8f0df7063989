/**
 * What the Telegram bot says, as pieces: briefings with their status row, receipts, confirmations and the
 * fixed texts. Pure functions; the data they show is escaped by `format.ts`.
 */
import type { InlineKeyboardMarkup } from "grammy/types";
import { DateTime } from "luxon";
import { type BriefingMessage, COMMAND_MENU, type PendingConfirmation } from "../../src/core/index.ts";
import { bold, code, italic, join, MESSAGE_LIMIT, type Piece, splitText, text, truncate } from "./format.ts";

/**
 * Callback data stays far below Telegram's 64 bytes: "r:<run id>[:<page>]", "c:<pending id>:y|n",
 * "u:<undo id>".
 */
export const receiptsButtonData = (runId: number) => `r:${runId}`;
export const confirmButtonData = (pendingId: number, confirmed: boolean) =>
  `c:${pendingId}:${confirmed ? "y" : "n"}`;
export const undoButtonData = (undoId: number) => `u:${undoId}`;

export type ButtonAction =
  | { kind: "receipts"; runId: number; page: number }
  | { kind: "confirm"; pendingId: number; confirmed: boolean }
  | { kind: "undo"; undoId: number }
  | { kind: "unknown" };

export function parseButtonData(data: string): ButtonAction {
  const receipts = /^r:(\d{1,12})(?::(\d{1,4}))?$/.exec(data);
  if (receipts?.[1]) return { kind: "receipts", runId: Number(receipts[1]), page: Number(receipts[2] ?? 0) };
  const confirm = /^c:(\d{1,12}):([yn])$/.exec(data);
  if (confirm?.[1]) return { kind: "confirm", pendingId: Number(confirm[1]), confirmed: confirm[2] === "y" };
  const undo = /^u:(\d{1,12})$/.exec(data);
  if (undo?.[1]) return { kind: "undo", undoId: Number(undo[1]) };
  return { kind: "unknown" };
}

/** Confirm and Cancel under a change waiting for the user. */
export function confirmKeyboard(pendingId: number): InlineKeyboardMarkup {
  return {
    inline_keyboard: [
      [
        { text: "✅ Confirm", callback_data: confirmButtonData(pendingId, true) },
        { text: "✖️ Cancel", callback_data: confirmButtonData(pendingId, false) },
      ],
    ],
  };
}

/** One Undo button per change the reply reports, each naming what it takes back. */
export function undoKeyboard(
  changes: ReadonlyArray<{ report: string; undo?: { id: number } | undefined }>,
): InlineKeyboardMarkup | undefined {
  const rows = changes.flatMap((change) =>
    change.undo
      ? [[{ text: truncate(`↩ Undo: ${change.report}`, 60), callback_data: undoButtonData(change.undo.id) }]]
      : [],
  );
  return rows.length > 0 ? { inline_keyboard: rows } : undefined;
}

/**
 * A briefing as messages: the prose split at paragraph boundaries, the status row under the last part
 * (or alone when it does not fit). The Receipts button goes on the last message.
 */
export function briefingPieces(
  message: Pick<BriefingMessage, "prose" | "statusRow">,
  limit = MESSAGE_LIMIT,
): Piece[] {
  const chunks = splitText(message.prose, limit);
  const status = message.statusRow.trim();
  if (status === "") return chunks.length > 0 ? chunks.map(text) : [text("(empty briefing)")];
  const statusPiece = italic(status);
  const last = chunks.at(-1);
  if (last !== undefined && last.length + 2 + status.length <= limit) {
    return [...chunks.slice(0, -1).map(text), join([text(last), statusPiece], "\n\n")];
  }
  return [...chunks.map(text), statusPiece];
}

export function confirmationPiece(pending: PendingConfirmation, timeZone: string): Piece {
  const expires = DateTime.fromJSDate(pending.expiresAt, { zone: timeZone });
  return join(
    [
      join([text("⚠️ "), bold(pending.summary)]),
      italic(`Confirm or cancel${expires.isValid ? ` before ${expires.toFormat("HH:mm")}` : ""}.`),
    ],
    "\n",
  );
}

/** Telegram's command menu: the core's catalog, so the menu, /help and Slack list the same commands. */
export const COMMANDS = COMMAND_MENU.map(({ command, description }) => ({ command, description }));

export function helpPiece(name: string | undefined): Piece {
  return join(
    [
      bold(`Hi${name ? ` ${name}` : ""}! I'm briefbot.`),
      text(
        "I send you short briefings from your calendar, tasks, feeds and the weather, and every fact in them comes from a tool I actually called.",
      ),
      join(
        [
          bold("Commands"),
          ...COMMAND_MENU.map((entry) =>
            join([
              code(`/${entry.command}${entry.usage ? ` ${entry.usage}` : ""}`),
              text(` – ${entry.description}`),
            ]),
          ),
        ],
        "\n",
      ),
      text(
        "Reply to a briefing to ask about it. Any other message is a normal chat: you can ask me to add a task or a note, for example.",
      ),
    ],
    "\n\n",
  );
}

export function refusalPiece(telegramUserId: number): Piece {
  return join(
    [
      text(
        "Hello! I'm a private assistant and only talk to people my owner has linked, so I can't help you yet.",
      ),
      join([
        text("If the owner gave you a code, send "),
        code("/link CODE"),
        text(". Otherwise ask the owner for one ("),
        code("briefbot user invite <name>"),
        text("), or to run: "),
        code(`briefbot user link <name> --telegram ${telegramUserId}`),
      ]),
      text(`Your Telegram id is ${telegramUserId}.`),
    ],
    "\n\n",
  );
}
