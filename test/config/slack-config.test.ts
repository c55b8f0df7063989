/** `slack.team_channels` in the BRIEFBOT_CONFIG file: channel ids only, each problem named. */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/config.ts";

const SLACK = { SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s3cret", BRIEFBOT_CONFIG: "c.yml" };

function problemsOf(file: string): string[] {
  try {
    loadConfig(SLACK, () => file);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("slack.team_channels", () => {
  it("is empty unless set; reads channel ids, once each", () => {
    expect(loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s" }, () => "")).toMatchObject({
      slack: { teamChannels: [] },
    });
    const config = loadConfig(SLACK, () => "slack:\n  team_channels: [C0123ABCD, G0456, C0123ABCD]\n");
    expect(config.slack?.teamChannels).toEqual(["C0123ABCD", "G0456"]);
  });

  it("refuses a channel name, a DM and anything that is no list, naming each", () => {
    expect(problemsOf("slack:\n  team_channels: ['#general', D0PRIVATE]\n")).toEqual([
      'BRIEFBOT_CONFIG: slack.team_channels.0 "#general" is not a Slack channel id (like C0123ABCD: the channel\'s details show it, below its name)',
      'BRIEFBOT_CONFIG: slack.team_channels.1 "D0PRIVATE" is a DM, which is private already; list channels only',
    ]);
    expect(problemsOf("slack:\n  team_channels: C0123ABCD\n")).toEqual([
      "BRIEFBOT_CONFIG: slack.team_channels must be a list of Slack channel ids",
    ]);
    expect(problemsOf("slack:\n  channels: [C0123ABCD]\n")[0]).toMatch(/^BRIEFBOT_CONFIG: slack .*channels/);
  });
});
