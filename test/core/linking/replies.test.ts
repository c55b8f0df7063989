import { describe, expect, it } from "vitest";
import { linkReply } from "../../../src/core/linking/replies.ts";

const style = { linkCommand: "/link", deliveredWhere: "here", nextSteps: "Send /brief for a briefing now." };

describe("the reply to a rate-limited sender", () => {
  it("names the minutes left, and says a minute rather than 1 minutes", () => {
    expect(linkReply({ kind: "rate-limited", retryAfterMinutes: 17 }, style)).toBe(
      "Too many codes tried. Please wait 17 minutes, then try again.",
    );
    expect(linkReply({ kind: "rate-limited", retryAfterMinutes: 1 }, style)).toBe(
      "Too many codes tried. Please wait a minute, then try again.",
    );
  });
});
