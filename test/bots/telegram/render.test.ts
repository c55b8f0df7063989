import { describe, expect, it } from "vitest";
import { escapeHtml, splitText } from "../../../bots/telegram/format.ts";
import { receiptPages } from "../../../bots/telegram/receipt-pages.ts";
import {
  briefingPieces,
  confirmButtonData,
  parseButtonData,
  receiptsButtonData,
} from "../../../bots/telegram/render.ts";
import type { Receipt } from "../../../src/core/assistant.ts";

describe("splitText", () => {
  it("keeps short text whole", () => {
    expect(splitText("one\n\ntwo", 100)).toEqual(["one\n\ntwo"]);
  });

  it("splits at paragraph boundaries first, then lines, then spaces, then hard", () => {
    const paragraphs = `${"a".repeat(60)}\n\n${"b".repeat(60)}`;
    expect(splitText(paragraphs, 100)).toEqual(["a".repeat(60), "b".repeat(60)]);
    const lines = `${"a".repeat(60)}\n${"b".repeat(60)}`;
    expect(splitText(lines, 100)).toEqual(["a".repeat(60), "b".repeat(60)]);
    expect(splitText("x".repeat(250), 100)).toEqual(["x".repeat(100), "x".repeat(100), "x".repeat(50)]);
  });

  it("never cuts a surrogate pair and loses no characters", () => {
    const emoji = "😀".repeat(60);
    const chunks = splitText(emoji, 51);
    expect(chunks.join("")).toBe(emoji);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(51);
    expect(chunks.every((chunk) => !/[\ud800-\udbff]$/.test(chunk))).toBe(true);
  });
});

describe("briefingPieces", () => {
  it("splits a 5,000-character briefing into two messages with the status row under the last", () => {
    const paragraph = "Word ".repeat(99).trim();
    const prose = Array.from({ length: 10 }, () => paragraph)
      .join("\n\n")
      .slice(0, 5000);
    const pieces = briefingPieces({ prose, statusRow: "✓ checked calendar · ✓ looked at tasks" });
    expect(pieces).toHaveLength(2);
    for (const piece of pieces) expect(piece.plain.length).toBeLessThanOrEqual(4096);
    expect(pieces[1]?.html.endsWith("<i>✓ checked calendar · ✓ looked at tasks</i>")).toBe(true);
    expect(
      pieces
        .map((piece) => piece.plain)
        .join("\n\n")
        .replace(/\s+/g, " "),
    ).toContain(prose.slice(-200).replace(/\s+/g, " "));
  });

  it("escapes every piece of data", () => {
    const [piece] = briefingPieces({ prose: "Task <b> and a & b", statusRow: "✓ <tasks>" });
    expect(piece?.html).toBe("Task &lt;b&gt; and a &amp; b\n\n<i>✓ &lt;tasks&gt;</i>");
    expect(piece?.plain).toBe("Task <b> and a & b\n\n✓ <tasks>");
  });
});

describe("receipts", () => {
  const receipt = (overrides: Partial<Receipt>): Receipt => ({
    id: 1,
    runId: 3,
    toolName: "list_tasks",
    arguments: { status: "open" },
    result: { tasks: [{ id: 1, title: "<b> & co", due: "2025-06-02" }] },
    error: false,
    at: new Date("2025-06-02T06:01:00Z"),
    ...overrides,
  });
  const view = (receipts: Receipt[]) => ({
    run: { id: 3, slot: "morning", localDate: "2025-06-02", createdAt: new Date(), archived: false },
    receipts,
  });

  it("shows each tool compactly, escaped, in the user's time zone", () => {
    const [piece] = receiptPages(view([receipt({})]), "Europe/Berlin");
    expect(piece?.plain).toContain("✓ list_tasks status=open · 08:01");
    expect(piece?.plain).toContain("• <b> & co · id 1 · due 2025-06-02");
    expect(piece?.html).toContain("&lt;b&gt; &amp; co");
    expect(piece?.html).not.toContain("<b> & co");
  });

  it("packs many receipts into messages under the limit", () => {
    const many = Array.from({ length: 30 }, (_, index) =>
      receipt({ id: index, toolName: `tool_${index}`, result: { text: "y".repeat(800) } }),
    );
    const pieces = receiptPages(view(many), "UTC");
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.plain.length).toBeLessThanOrEqual(4096);
    expect(pieces.map((piece) => piece.plain).join("")).toContain("tool_29");
  });
});

describe("button data", () => {
  it("stays under 64 bytes and round-trips", () => {
    expect(Buffer.byteLength(receiptsButtonData(999_999_999_999))).toBeLessThanOrEqual(64);
    expect(parseButtonData(receiptsButtonData(12))).toEqual({ kind: "receipts", runId: 12, page: 0 });
    expect(parseButtonData("r:12:3")).toEqual({ kind: "receipts", runId: 12, page: 3 });
    expect(parseButtonData("u:44")).toEqual({ kind: "undo", undoId: 44 });
    expect(parseButtonData(confirmButtonData(7, false))).toEqual({
      kind: "confirm",
      pendingId: 7,
      confirmed: false,
    });
    expect(parseButtonData("r:abc")).toEqual({ kind: "unknown" });
  });

  it("escapes only what Telegram needs", () => {
    expect(escapeHtml(`<a href="x">&</a>`)).toBe(`&lt;a href="x"&gt;&amp;&lt;/a&gt;`);
  });
});
