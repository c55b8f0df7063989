/**
 * Every chat command the product offers, once: Telegram's command menu (`setMyCommands`) and /help, Slack's
 * /help and its app manifest's slash commands are all built from this list (a test keeps the manifest equal).
 */

export interface ChatCommand {
  /** Without the slash; lower case, as both platforms require. */
  command: string;
  /** One line for the platform's menu (Telegram allows 3–256 characters, Slack's manifest 2000). */
  description: string;
  /** What follows the command, for help and Slack's `usage_hint`; empty when it takes nothing. */
  usage: string;
}

export const COMMAND_MENU: readonly ChatCommand[] = [
  {
    command: "brief",
    description: "A briefing now (optionally for one slot)",
    usage: "[morning|midday|afternoon|evening]",
  },
  {
    command: "receipts",
    description: "What the tools returned for the latest (or replied-to) briefing",
    usage: "",
  },
  {
    command: "settings",
    description: "Your time zone, place, briefing times and mode, and how to change them",
    usage: "[morning 06:45 | midday off | place Porto | zone Europe/Lisbon | mode legacy]",
  },
  {
    command: "link",
    description: "Link this account to your briefbot user with an invite code",
    usage: "<code>",
  },
  {
    command: "export",
    description: "Download everything briefbot stores about you",
    usage: "",
  },
  {
    command: "forget",
    description: "Delete everything briefbot stores about you (asks first)",
    usage: "",
  },
  { command: "help", description: "What I do and the commands I know", usage: "" },
];

/** "/settings morning 06:45" style lines, one per command, for /help on any platform. */
export function commandHelpLines(prefix = "/"): string[] {
  return COMMAND_MENU.map(
    (entry) => `${prefix}${entry.command}${entry.usage ? ` ${entry.usage}` : ""} – ${entry.description}`,
  );
}
