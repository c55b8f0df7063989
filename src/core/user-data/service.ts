/**
 * Export and forget, for the CLI and both chat adapters: the export document (with its file name and
 * bytes) and the two-question forget flow that ends in `UserData.remove`.
 */
import type { Clock } from "../clock.ts";
import { type Ids, sequentialIds } from "../ids.ts";
import {
  type ExportDocument,
  type ExportOptions,
  exportDocument,
  exportFilename,
} from "./export-document.ts";
import {
  createForgetFlow,
  type ForgetAnswer,
  type ForgetQuestion,
  type ForgetQuestions,
} from "./forget-flow.ts";
import type { RemovalCounts, UserData } from "./port.ts";

/** How long each forget question may wait for its answer. */
export const FORGET_QUESTION_MINUTES = 5;

export interface UserExport {
  document: ExportDocument;
  filename: string;
  /** The document as UTF-8 JSON, indented for people. */
  bytes: Uint8Array;
}

export type ForgetOutcome =
  | Exclude<ForgetAnswer, { kind: "confirmed" }>
  | { kind: "cancelled" }
  | { kind: "removed"; counts: RemovalCounts };

export interface UserDataService {
  /** Undefined when there is no such user. */
  exportUser(userId: number, options?: ExportOptions): Promise<UserExport | undefined>;
  /** Deletes everything at once (the CLI, after its own confirmation). */
  remove(userId: number): Promise<RemovalCounts>;
  /** Chat: the first question. */
  beginForget(userId: number): Promise<ForgetQuestion>;
  /** Chat: a Confirm or Cancel press; the second Confirm deletes. */
  answerForget(userId: number, token: string, confirmed: boolean): Promise<ForgetOutcome>;
  /** Chat: the user said something else while a question was open; true when one was. */
  cancelForget(userId: number): Promise<boolean>;
}

export function createUserDataService(
  port: UserData,
  questions: ForgetQuestions,
  clock: Clock,
  /** `ids`: unique across processes (a question asked on one is answered on another). */
  options: { questionMinutes?: number; ids?: Ids } = {},
): UserDataService {
  const ids = options.ids ?? sequentialIds("q");
  // Telegram's callback data takes [0-9a-z] only (see bots/telegram/user-data.ts), at most 40 of them.
  const newToken = () =>
    `${clock.now().getTime().toString(36)}${ids().replace(/[^0-9a-z]/g, "")}`.slice(0, 40);
  const flow = createForgetFlow(
    questions,
    clock,
    options.questionMinutes ?? FORGET_QUESTION_MINUTES,
    newToken,
  );
  return {
    async exportUser(userId, exportOptions) {
      const data = await port.read(userId);
      if (!data) return undefined;
      const at = clock.now();
      const document = exportDocument(data, at, exportOptions);
      return {
        document,
        filename: exportFilename(data.user.name, at),
        bytes: new TextEncoder().encode(`${JSON.stringify(document, null, 2)}\n`),
      };
    },
    remove: (userId) => port.remove(userId),
    beginForget: (userId) => flow.begin(userId),
    async answerForget(userId, token, confirmed) {
      const answer = await flow.answer(userId, token, confirmed);
      if (answer.kind !== "confirmed") return answer;
      return { kind: "removed", counts: await port.remove(userId) };
    },
    cancelForget: (userId) => flow.cancel(userId),
  };
}

/** "messages: 12, tasks: 3, …": the non-zero counts, largest first, for a confirmation line. */
export function describeCounts(counts: RemovalCounts): string {
  const parts = Object.entries(counts)
    .filter(([, count]) => count > 0)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([table, count]) => `${table.replace(/_/g, " ")}: ${count}`);
  return parts.length > 0 ? parts.join(", ") : "nothing";
}
