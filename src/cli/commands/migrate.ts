import type { RegisterCommands } from "../context.ts";
import { withContext } from "../context.ts";

export const registerMigrateCommand: RegisterCommands = (program, context) => {
  program
    .command("migrate")
    .description("apply database migrations (also done on every start)")
    .action(() =>
      withContext(context, async (ctx) => {
        // The context factory has already migrated; saying where keeps the operator oriented.
        ctx.out.line(
          `database is up to date (${ctx.config.database.url ? "PostgreSQL" : `PGlite in ${ctx.config.database.dataDir}`})`,
        );
      }),
    );
};
