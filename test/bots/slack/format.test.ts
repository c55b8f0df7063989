import { describe, expect, it } from "vitest";
import {
  briefingMessages,
  escapeMrkdwn,
  MAX_BLOCKS_PER_MESSAGE,
  MAX_SECTION_TEXT,
  proseToMrkdwn,
  receiptsMessages,
  splitText,
  textMessages,
} from "../../../bots/slack/format.ts";
import type { Receipt, ReceiptsView } from "../../../src/core/assistant.ts";
import { validateMessage } from "../../servers/slack-server.ts";

const sectionTexts = (blocks: Array<{ type: string }>) =>
  blocks.flatMap((block) =>
    block.type === "section" ? [(block as unknown as { text: { text: string } }).text.text] : [],
  );

describe("slack formatting", () => {
  it("escapes &, < and > so data can't open links or mentions", () => {
    expect(escapeMrkdwn("<!channel> & <@U1|x>")).toBe("&lt;!channel&gt; &amp; &lt;@U1|x&gt;");
    expect(proseToMrkdwn("**Rain** <later>")).toBe("*Rain* &lt;later&gt;");
  });

  it("escapes data in the fallback text too, which Slack reads as mrkdwn", () => {
    const [parent] = briefingMessages({
      runId: 7,
      userId: 1,
      slot: "morning",
      localDate: "2025-06-02",
      prose: "Headline: <!channel> wins & <@U1>",
      checks: [],
      statusRow: "✓ pulled news",
      mode: "agentic",
    });
    expect(parent?.text).toContain("&lt;!channel&gt; wins &amp; &lt;@U1&gt;");
    expect(parent?.text).not.toContain("<");
    const [answer] = textMessages(`${"&".repeat(4000)}`);
    expect(answer?.text.length).toBeLessThanOrEqual(3000);
    expect(answer?.text).toMatch(/&amp;…$/);
  });

  it("splits long text under the limit without cutting an entity", () => {
    const text = escapeMrkdwn("a&b ".repeat(2000));
    const pieces = splitText(text, 100);
    expect(pieces.join("").replace(/\s/g, "")).toBe(text.replace(/\s/g, ""));
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(100);
      expect(piece).not.toMatch(/&(a|am|amp)?$/);
    }
    const unbroken = "x".repeat(7001);
    expect(splitText(unbroken).map((piece) => piece.length)).toEqual([3000, 3000, 1001]);
  });

  it("pages a long receipts list into valid messages of ≤50 blocks, keeping every receipt", () => {
    const receipts: Receipt[] = Array.from({ length: 80 }, (_, index) => ({
      id: index + 1,
      runId: 9,
      toolName: `tool_${index}`,
      arguments: { index },
      result: { items: Array.from({ length: 60 }, (_, item) => `item ${item} <b> & "quoted"`) },
      error: index % 7 === 0,
      at: new Date("2025-06-02T06:00:00Z"),
    }));
    const view: ReceiptsView = {
      run: {
        id: 9,
        slot: "morning",
        localDate: "2025-06-02",
        createdAt: new Date("2025-06-02T06:00:00Z"),
        archived: false,
      },
      receipts,
    };
    const pages = receiptsMessages(view, "Europe/London", new Date("2025-06-02T06:30:00Z"));
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) {
      expect(page.blocks.length).toBeLessThanOrEqual(MAX_BLOCKS_PER_MESSAGE);
      expect(validateMessage({ text: page.text, blocks: page.blocks })).toBeUndefined();
    }
    const all = pages.flatMap((page) => sectionTexts(page.blocks)).join("\n");
    for (let index = 0; index < 80; index += 1) expect(all).toContain(`*tool_${index}*`);
    expect(all).toContain("07:00 (30 min ago)");
    expect(all).toContain("✗ 1. *tool_0*");
    expect(all).not.toContain("<b>");
  });

  it("keeps the status row and the Receipts button on the thread parent even for huge prose", () => {
    const pages = briefingMessages({
      runId: 3,
      userId: 1,
      slot: "morning",
      localDate: "2025-06-02",
      prose: "word ".repeat(40_000),
      checks: [],
      statusRow: "✓ checked calendar · ✗ pulled weather",
      mode: "agentic",
    });
    const [parent, ...overflow] = pages;
    expect(parent?.blocks.slice(-2).map((block) => block.type)).toEqual(["context", "actions"]);
    expect(overflow.length).toBeGreaterThan(0);
    for (const page of pages)
      expect(validateMessage({ text: page.text, blocks: page.blocks })).toBeUndefined();
    expect(parent?.text.length).toBeLessThanOrEqual(MAX_SECTION_TEXT);
  });

  it("never produces an empty answer message", () => {
    expect(validateMessage({ ...textMessages("")[0] })).toBeUndefined();
  });
});
