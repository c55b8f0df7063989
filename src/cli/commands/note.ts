import { createNote, listNotes } from "../../../db/queries/notes.ts";
import { requireUserByName } from "../../../db/queries/users.ts";
import { FIELD_LIMITS } from "../../core/field-limits.ts";
import { daysBefore, formatLocal } from "../../core/local-time.ts";
import { CliError, type RegisterCommands, withContext } from "../context.ts";
import { parsePositiveInt, parseText } from "../parse.ts";

interface NoteOptions {
  user: string;
  title?: string;
  recentDays?: string;
  json?: boolean;
}

export const registerNoteCommands: RegisterCommands = (program, context) => {
  const note = program.command("note").description("a user's notes");

  note
    .command("add <text...>")
    .description("add a note")
    .requiredOption("--user <name>", "whose note")
    .option("--title <title>", "short title", "")
    .option("--json", "machine-readable output")
    .action((words: string[], options: NoteOptions) =>
      withContext(context, async (ctx) => {
        const owner = await requireUserByName(ctx.db, options.user);
        const body = parseText("the note", words.join(" ").trim(), FIELD_LIMITS.noteBody);
        if (!body) throw new CliError("a note needs text");
        const title = parseText("--title", options.title ?? "", FIELD_LIMITS.noteTitle);
        const created = await createNote(ctx.db, {
          userId: owner.id,
          body,
          title,
          createdAt: ctx.clock.now(),
        });
        if (options.json) ctx.out.json(created);
        else ctx.out.line(`added note ${created.id}`);
      }),
    );

  note
    .command("list")
    .description("list notes, newest first")
    .requiredOption("--user <name>", "whose notes")
    .option("--recent-days <days>", "only notes from the last N days")
    .option("--json", "machine-readable output")
    .action((options: NoteOptions) =>
      withContext(context, async (ctx) => {
        const recentDays = options.recentDays
          ? parsePositiveInt("--recent-days", options.recentDays, 36_500)
          : undefined;
        const owner = await requireUserByName(ctx.db, options.user);
        const rows = await listNotes(ctx.db, owner.id, {
          since: recentDays ? daysBefore(ctx.clock.now(), recentDays) : undefined,
          limit: 100,
        });
        if (options.json) return ctx.out.json(rows);
        if (rows.length === 0) return ctx.out.line("no notes");
        for (const row of rows) {
          const heading = row.title ? `${row.title}: ` : "";
          ctx.out.line(
            `${String(row.id).padStart(4)}  ${formatLocal(row.createdAt, owner.timeZone)}  ${heading}${row.body.replace(/\s+/g, " ")}`,
          );
        }
      }),
    );
};
