/**
 * `briefbot chat --user U [--run ID]`: the terminal channel. Lines from the input are messages; by default
 * they follow up on the user's latest briefing. A change waiting for confirmation asks "y/n" before it runs;
 * `/undo` takes back the changes the last reply made.
 */
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { getUserRun, latestFinishedRun } from "../../../db/queries/runs.ts";
import { requireUserByName } from "../../../db/queries/users.ts";
import type { Assistant, ThreadRef } from "../../core/index.ts";
import { CliError, type Output, type RegisterCommands, withContext } from "../context.ts";
import { parseId } from "../parse.ts";
import { assistantCore } from "./brief.ts";

interface ChatOptions {
  user: string;
  run?: string;
  new?: boolean;
}

/** `input` defaults to stdin; tests pass their own stream. */
export function createChatCommands(streams: { input?: Readable } = {}): RegisterCommands {
  return (program, context) => {
    program
      .command("chat")
      .description("talk to the assistant in the terminal (follow-ups to the latest briefing by default)")
      .requiredOption("--user <name>", "who is talking")
      .option("--run <id>", "follow up on this briefing run")
      .option("--new", "plain chat, not about a briefing")
      .action((options: ChatOptions) =>
        withContext(context, async (ctx) => {
          const user = await requireUserByName(ctx.db, options.user);
          let runId: number | undefined;
          if (options.run !== undefined) {
            runId = parseId("--run", options.run);
            if (runId === undefined || !(await getUserRun(ctx.db, user.id, runId)))
              throw new CliError(`${user.name} has no run ${options.run.trim()}`);
          } else if (!options.new) {
            runId = (await latestFinishedRun(ctx.db, user.id))?.id;
          }
          const thread: ThreadRef = {
            platform: "cli",
            threadKey: `cli:${user.id}:${ctx.clock.now().toISOString()}`,
            ...(runId !== undefined ? { runId } : {}),
          };
          ctx.out.line(
            runId === undefined
              ? `chatting with ${user.name}'s assistant; /undo takes back the last reply's changes, an empty line or /exit ends`
              : `following up on briefing run ${runId}; /undo takes back the last reply's changes, an empty line or /exit ends`,
          );
          await runTerminalChat(
            assistantCore(ctx).assistant,
            user.id,
            thread,
            streams.input ?? process.stdin,
            ctx.out,
          );
        }),
      );
  };
}

export const registerChatCommands: RegisterCommands = createChatCommands();

export async function runTerminalChat(
  assistant: Assistant,
  userId: number,
  thread: ThreadRef,
  input: Readable,
  out: Output,
): Promise<void> {
  // At a terminal the person sees where to type; piped input (scripts, tests) gets no prompts.
  const interactive = input === process.stdin && process.stdin.isTTY === true;
  const reader = createInterface({
    input,
    crlfDelay: Number.POSITIVE_INFINITY,
    ...(interactive ? { output: process.stdout, terminal: true } : {}),
  });
  const lines = reader[Symbol.asyncIterator]();
  const next = async (prompt = "you> "): Promise<string | undefined> => {
    if (interactive) {
      reader.setPrompt(prompt);
      reader.prompt();
    }
    const line = await lines.next();
    return line.done ? undefined : line.value;
  };
  let undoable: number[] = [];
  for (;;) {
    const text = (await next())?.trim();
    if (!text || text === "/exit") {
      reader.close();
      return;
    }
    if (text === "/undo") {
      if (undoable.length === 0) out.line("assistant> There is nothing to undo.");
      // Latest first, so an update is undone before the creation it changed.
      for (const id of undoable.reverse()) out.line(`assistant> ${(await assistant.undo(userId, id)).text}`);
      undoable = [];
      continue;
    }
    const reply = await assistant.reply(userId, thread, text);
    out.line(`assistant> ${reply.text}`);
    undoable = reply.changes.flatMap((change) => (change.undo ? [change.undo.id] : []));
    // A Confirm on a version its server moved past asks again, against the new one.
    const waiting = [...reply.pending];
    for (let pending = waiting.shift(); pending; pending = waiting.shift()) {
      out.line(`confirm> ${pending.summary} [y/N]`);
      const answer = (await next("y/N> "))?.trim().toLowerCase() ?? "";
      const outcome = await assistant.resolveConfirmation(
        userId,
        pending.id,
        answer === "y" || answer === "yes",
      );
      out.line(`assistant> ${outcome.text}`);
      if (outcome.kind === "done" && outcome.undo) undoable.push(outcome.undo.id);
      if (outcome.kind === "asked-again") waiting.push(...outcome.pending);
    }
  }
}
