import { sentenceSpans } from "./sentences.ts";
import type { Claim, GroundingReport } from "./types.ts";

/**
 * The prose without the sentences that hold an unbacked claim, keeping paragraphs and line breaks.
 * `report` must come from `checkGrounding` on this same prose. Returns "" when nothing is left.
 */
export function removeUnbackedSentences(prose: string, report: GroundingReport): string {
  const doomed = new Set(report.unbacked.map((claim) => claim.sentenceIndex));
  if (doomed.size === 0) return prose.trim();
  let result = "";
  let cursor = 0;
  sentenceSpans(prose).forEach((span, index) => {
    if (!doomed.has(index)) return;
    let end = span.end;
    while (end < prose.length && /[ \t]/.test(prose.charAt(end))) end += 1;
    result += prose.slice(cursor, span.start);
    cursor = end;
  });
  result += prose.slice(cursor);
  return result
    .split("\n")
    .map((line) => line.replace(/[ \t]+$/, ""))
    .filter((line) => !/^\s*(?:[-*•]|\d+[.)])\s*$/.test(line))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * A corrective instruction for the model naming exactly the claims no receipt backs, or "" when every
 * claim is backed.
 */
export function describeUnbacked(
  report: GroundingReport,
  subject: { text: string; source: string } = { text: "the briefing", source: "this run" },
): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const claim of report.unbacked) {
    const key = `${claim.kind}:${claim.normalized}:${claim.text.toLowerCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`"${claim.text}" (${report.reasons?.get(claim) ?? reason(claim)})`);
  }
  if (lines.length === 0) return "";
  return `These claims have no receipt from ${subject.source}: ${lines.join("; ")}. Rewrite ${subject.text} without them; say plainly when something is empty.`;
}

/** The generic reason a claim of this kind is unbacked, when its finder gave none of its own. */
export function reason(claim: Claim): string {
  switch (claim.kind) {
    case "time":
      return `no event or task at ${claim.normalized}`;
    case "date":
      return `no event, task or item on ${claim.normalized}`;
    case "temperature":
      return `no weather reading of ${claim.normalized}`;
    case "number":
      return `no list or value of ${claim.normalized}`;
    case "item":
      return "no task, event, project or headline by that name";
    case "absence":
      return absenceReason(claim.normalized);
    case "day":
      return "the receipts give that item another day";
    case "state":
      return "the receipts show that item otherwise";
    case "weather":
      return "the forecast for that day says otherwise";
    case "quantity":
      return "the receipts' lists say otherwise";
    case "name":
      return "no receipt holds that name";
    case "happening":
      return "no receipt reports that this happened";
  }
}

/** "empty:events:today" → why the receipts contradict or do not back it. */
function absenceReason(normalized: string): string {
  const [claim, family = "data", scope] = normalized.split(":");
  const what = scope ? `${family} (${scope.replace(/_/g, " ")})` : family;
  return claim === "unavailable"
    ? `a tool result of this run does show ${what}`
    : `no tool result of this run shows an empty list of ${what}; say what the result lists`;
}
