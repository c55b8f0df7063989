import type { RegisterCommands } from "../context.ts";
import { registerBriefCommands } from "./brief.ts";
import { registerCalendarCommands, registerEventCommands } from "./calendar.ts";
import { registerChatCommands } from "./chat.ts";
import { registerFeedCommands } from "./feed.ts";
import { registerMigrateCommand } from "./migrate.ts";
import { registerModelsCommand } from "./models.ts";
import { registerNoteCommands } from "./note.ts";
import { registerProjectCommands } from "./project.ts";
import { registerReceiptsCommands } from "./receipts.ts";
import { registerRunsCommands } from "./runs.ts";
import { registerStartCommand } from "./start.ts";
import { registerTaskCommands } from "./task.ts";
import { registerUserCommands } from "./user.ts";
import { registerWeatherCommands } from "./weather.ts";

/** Every command family of `briefbot`, in the order `--help` lists them. */
export const COMMAND_FAMILIES: RegisterCommands[] = [
  registerStartCommand,
  registerMigrateCommand,
  registerUserCommands,
  registerTaskCommands,
  registerProjectCommands,
  registerNoteCommands,
  registerEventCommands,
  registerCalendarCommands,
  registerFeedCommands,
  registerWeatherCommands,
  registerBriefCommands,
  registerReceiptsCommands,
  registerChatCommands,
  registerRunsCommands,
  registerModelsCommand,
];
