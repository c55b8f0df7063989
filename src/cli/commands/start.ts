import { startApp } from "../../app.ts";
import { createLogger } from "../../logger.ts";
import type { RegisterCommands } from "../context.ts";
import { withContext } from "../context.ts";

export const registerStartCommand: RegisterCommands = (program, context) => {
  program
    .command("start")
    .description("run the bot: scheduler, syncs, HTTP endpoints and the configured platforms")
    .option(
      "--allow-self-signup",
      "let /start from a stranger create their user (config: access.self_signup)",
    )
    .action((options: { allowSelfSignup?: boolean }) =>
      withContext(
        context,
        async (ctx) => {
          const logger = createLogger(ctx.config.logLevel);
          const config = options.allowSelfSignup
            ? { ...ctx.config, access: { selfSignup: true } }
            : ctx.config;
          const app = await startApp(
            { ...ctx, config, logger },
            { progress: (line) => ctx.out.line(`briefbot: ${line}`) },
          );
          const [first, ...rest] = app.summary;
          ctx.out.line(`${first} (ready ${process.uptime().toFixed(1)} s after launch)`);
          for (const line of rest) ctx.out.line(line);
          const signal = await new Promise<NodeJS.Signals>((resolve) => {
            process.once("SIGINT", () => resolve("SIGINT"));
            process.once("SIGTERM", () => resolve("SIGTERM"));
          });
          ctx.out.line(`${signal}: shutting down…`);
          await app.stop();
          ctx.out.line("stopped cleanly");
        },
        { role: "bot" },
      ),
    );
};
