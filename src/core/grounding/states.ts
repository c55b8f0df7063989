/**
 * States said of a named item — done, still open, cancelled, moved or rescheduled, overdue — checked
 * against what the receipts show of that item: its status, the check-in's completions and moved events,
 * its due date against the run's local date.
 */
import { type ItemMention, mentionedItems, nearestItems } from "./binding.ts";
import type { ItemFact } from "./facts.ts";
import type { Evidence, FoundClaim } from "./types.ts";
import { stem, stemsMatch, tokenize } from "./words.ts";

export type ItemState = "done" | "open" | "cancelled" | "moved" | "overdue";

const DONE_WORDS = String.raw`settled|finished|completed|complete|done|ticked\s+off|checked\s+off|crossed\s+off|wrapped\s+up|knocked\s+out|sorted(?:\s+out)?|taken\s+care\s+of|dealt\s+with|handled|closed|nailed|out\s+of\s+the\s+way|off\s+(?:your|the)\s+list|got\s+through|submitted|sent\s+off|paid`;

const PATTERNS: Array<{ state: ItemState; pattern: RegExp }> = [
  {
    state: "done",
    pattern:
      /\byou(?:['’]ve|\s+have|\s+had)?\s+(?:already\s+|just\s+|now\s+|finally\s+|successfully\s+)?(?:finished|completed|ticked\s+off|checked\s+off|crossed\s+off|wrapped\s+up|knocked\s+out|sorted(?:\s+out)?|taken\s+care\s+of|dealt\s+with|handled|closed|nailed|got\s+through|submitted|sent\s+off|paid|done)\b/giu,
  },
  {
    state: "done",
    pattern: new RegExp(
      String.raw`\b(?:is|are|was|were|has\s+been|have\s+been|['’]s\s+been|['’]s|got|is\s+now|are\s+now|now)\s+(?:already\s+|now\s+|officially\s+|finally\s+|all\s+)?(?:${DONE_WORDS})\b|\balready\s+(?:done|finished|completed|ticked\s+off|handled|sorted)\b|\b(?:which|that)\s+you\s+(?:finished|completed|ticked\s+off)\b`,
      "giu",
    ),
  },
  {
    state: "open",
    pattern:
      /\b(?:is|are|remains?|stays?)\s+(?:still\s+)?(?:open|pending|outstanding|unfinished|undone|not\s+(?:yet\s+)?(?:done|finished|completed))\b|\bstill\s+(?:open|pending|outstanding|unfinished|to\s+do|on\s+(?:your|the)\s+(?:list|plate))\b|\b(?:hasn['’]t|has\s+not|haven['’]t|have\s+not)\s+been\s+(?:done|finished|completed|ticked\s+off)\b|\b(?:not|isn['’]t|aren['’]t)\s+(?:yet\s+)?(?:done|finished|completed)\s+yet\b/giu,
  },
  {
    state: "cancelled",
    pattern:
      /\b(?:cancell?ed|called\s+off|scrapped|axed|dropped\s+from\s+(?:your|the)\s+calendar|no\s+longer\s+(?:on|happening|going\s+ahead)|(?:is|are|['’]s)\s+(?:now\s+)?off(?!\s+(?:to|the|your|at|for|until|till|work|duty)\b)|(?:won['’]t|will\s+not|isn['’]t|is\s+not|aren['’]t|are\s+not)\s+(?:be\s+)?(?:happen(?:ing)?|go(?:ing)?\s+ahead|take\s+place|taking\s+place|running))\b/giu,
  },
  {
    state: "moved",
    pattern:
      /\b(?:moved|rescheduled|re-scheduled|pushed(?:\s+(?:back|out|forward|later|earlier|to))?|postponed|brought\s+forward|shifted|bumped|delayed|changed\s+to|now\s+(?:starts|begins)\s+at)\b/giu,
  },
  {
    state: "overdue",
    pattern: /\b(?:overdue|past\s+due|past\s+its\s+due\s+date|behind\s+schedule|late)\b/giu,
  },
];

/** Words before a state that make it a condition or advice rather than a fact: "once X is done". */
const HYPOTHETICAL =
  /\b(?:once|when|whenever|if|until|till|unless|before|after|so|to\s+get|get|getting|could|might|may|can|should|would|will|want\s+to|need\s+to|needs\s+to|try\s+to|aim\s+to|going\s+to|gonna|let['’]s|to\s+be|from\s+(?:being|going)|becomes?|goes|going|not|isn['’]t|aren['’]t|won['’]t|wasn['’]t|never|worth|how|whether)\b[^.;]{0,40}$/iu;

export function findStateClaims(sentence: string, evidence: Evidence): FoundClaim[] {
  const { facts } = evidence;
  if (facts.items.length === 0) return [];
  const mentions = mentionedItems(sentence, facts);
  if (mentions.length === 0) return [];
  const claims: FoundClaim[] = [];
  const taken: Array<[number, number]> = [];
  for (const { state, pattern } of PATTERNS) {
    for (const match of sentence.matchAll(pattern)) {
      const start = match.index ?? 0;
      const end = start + match[0].length;
      if (taken.some(([from, to]) => from < end && start < to)) continue;
      const before = sentence.slice(Math.max(0, start - 48), start);
      if (state !== "open" && HYPOTHETICAL.test(before)) continue;
      if (
        state === "overdue" &&
        /^\s+(?:afternoon|morning|evening|night|start|finish|lunch)/iu.test(sentence.slice(end))
      )
        continue;
      if (
        state === "overdue" &&
        /\blate$/iu.test(match[0]) &&
        !/\b(?:is|are|running|already)\s+$/iu.test(before)
      )
        continue;
      const nearest = bindState(sentence, state, start, end, mentions);
      if (nearest.length === 0) continue;
      taken.push([start, end]);
      // "you completed Call the bank and Kitchen: order tiles": the state is said of every item listed.
      const listed = coordinated(sentence, nearest, mentions);
      const bound = listed.length > 1 ? listed : nearest;
      const holds = (mention: ItemMention) => hasState(mention.item, state, facts.localDate, facts.items);
      const backing = bound.find(holds);
      const backed = listed.length > 1 ? listed.every(holds) : backing !== undefined;
      const item = (bound.find((mention) => !holds(mention)) ?? bound[0])?.item;
      claims.push({
        kind: "state",
        text: match[0],
        normalized: `${item?.title ?? ""}:${state}`,
        start,
        end,
        isBacked: () => backed,
        backedBy: backing?.item.receiptId,
        reason: () => (item ? `the receipts show "${item.title}" ${shownState(item, facts.localDate)}` : ""),
      });
    }
  }
  claims.push(...titleVerbDone(sentence, facts, mentions, taken));
  claims.push(...youDidTitleVerb(sentence, facts, mentions, taken, claims));
  return claims;
}

/** Past forms that a light stemmer does not bring back to their verb. */
const IRREGULAR: Record<string, string> = {
  sent: "send",
  paid: "pay",
  written: "write",
  bought: "buy",
  made: "make",
  taken: "take",
  done: "do",
  booked: "book",
  sold: "sell",
  built: "build",
  found: "find",
  told: "tell",
};
const PARTICIPLE =
  /\b(?:(?:has|have|had)\s+(?:already\s+|now\s+)?been|(?:is|are|was|were|got)\s+(?:already\s+|now\s+|all\s+)?)\s*(\p{L}{3,}(?:ed|en|t|d))\b/giu;

/**
 * "Return library books has been returned", "the Q4 report was sent": a task said to have had its own
 * verb done to it is said to be done.
 */
function titleVerbDone(
  sentence: string,
  facts: Evidence["facts"],
  mentions: readonly ItemMention[],
  taken: Array<[number, number]>,
): FoundClaim[] {
  const claims: FoundClaim[] = [];
  for (const match of sentence.matchAll(PARTICIPLE)) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    if (taken.some(([from, to]) => from < end && start < to)) continue;
    if (HYPOTHETICAL.test(sentence.slice(Math.max(0, start - 48), start))) continue;
    const word = (match[1] ?? "").toLowerCase();
    const verb = stem(IRREGULAR[word] ?? word);
    const bound = nearestItems(mentions, sentence, start, end, (item) => {
      const first = tokenize(item.title.replace(/^[^:]*:\s*/u, ""))[0];
      return item.family === "task" && first !== undefined && stemsMatch(stem(first), verb);
    });
    // The task must be what the verb is said of: named just before it ("Return library books has been…").
    const subject = bound.find(
      (mention) => mention.end <= start && /^[^,;.]{0,24}$/u.test(sentence.slice(mention.end, start)),
    );
    const item = subject?.item;
    if (!item) continue;
    const backed = hasState(item, "done", facts.localDate, facts.items);
    claims.push({
      kind: "state",
      text: match[0],
      normalized: `${item.title}:done`,
      start,
      end,
      isBacked: () => backed,
      backedBy: backed ? item.receiptId : undefined,
      reason: () => `the receipts show "${item.title}" ${shownState(item, facts.localDate)}`,
    });
  }
  return claims;
}

/** "You've watered the plants", "you already returned the library books": the user did the task's own verb. */
const YOU_DID =
  /\byou(?:['’]ve|\s+have|\s+had)?\s+(?:already\s+|just\s+|now\s+|finally\s+|successfully\s+)?(\p{L}{3,}(?:ed|en|t|d))\b/giu;

/**
 * "You've watered the plants already": a task whose first word is the verb the user is said to have done,
 * named right after it, is said to be done.
 */
function youDidTitleVerb(
  sentence: string,
  facts: Evidence["facts"],
  mentions: readonly ItemMention[],
  taken: Array<[number, number]>,
  found: readonly FoundClaim[],
): FoundClaim[] {
  const claims: FoundClaim[] = [];
  for (const match of sentence.matchAll(YOU_DID)) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    if (taken.some(([from, to]) => from < end && start < to)) continue;
    if (found.some((claim) => claim.start < end && start < claim.end)) continue;
    if (HYPOTHETICAL.test(sentence.slice(Math.max(0, start - 48), start))) continue;
    const word = (match[1] ?? "").toLowerCase();
    const verb = stem(IRREGULAR[word] ?? word);
    // The task is the verb's object: named just after it (its title may begin at the verb itself).
    const object = mentions.find((mention) => {
      const first = tokenize(mention.item.title.replace(/^[^:]*:\s*/u, ""))[0];
      return (
        mention.item.family === "task" &&
        first !== undefined &&
        stemsMatch(stem(first), verb) &&
        mention.end > end - word.length &&
        /^[^,;.]{0,16}$/u.test(sentence.slice(end, Math.max(end, mention.start)))
      );
    });
    const item = object?.item;
    if (!item) continue;
    taken.push([start, end]);
    const backed = hasState(item, "done", facts.localDate, facts.items);
    claims.push({
      kind: "state",
      text: match[0],
      normalized: `${item.title}:done`,
      start,
      end,
      isBacked: () => backed,
      backedBy: backed ? item.receiptId : undefined,
      reason: () => `the receipts show "${item.title}" ${shownState(item, facts.localDate)}`,
    });
  }
  return claims;
}

/** The items listed with the bound one: "X and Y", "X, Y and Z" (one item each, in reading order). */
function coordinated(
  sentence: string,
  bound: readonly ItemMention[],
  mentions: readonly ItemMention[],
): ItemMention[] {
  const first = bound[0];
  if (!first || bound.length > 1) return [...bound];
  const list = [first];
  const later = mentions.filter((mention) => mention.start >= first.end).sort((a, b) => a.start - b.start);
  let last = first;
  for (const next of later) {
    if (next.start < last.end) continue;
    if (!/^\s*(?:,|and|&|,\s*and)\s*(?:the\s+|your\s+)?$/iu.test(sentence.slice(last.end, next.start))) break;
    if (next.item.family !== first.item.family) break;
    list.push(next);
    last = next;
  }
  return list;
}

function bindState(
  sentence: string,
  state: ItemState,
  start: number,
  end: number,
  mentions: readonly ItemMention[],
): ItemMention[] {
  const accept = (item: ItemFact): boolean =>
    state === "overdue" || state === "done" || state === "open"
      ? item.family === "task" || (state === "done" && item.family === "event" && false)
      : item.family === "event" || (state === "cancelled" && item.family === "task");
  return nearestItems(mentions, sentence, start, end, accept);
}

function hasState(item: ItemFact, state: ItemState, today: string, all: readonly ItemFact[]): boolean {
  // The same title may come from several receipts (today's list and the check-in's completions).
  const same = all.filter((other) => other.family === item.family && other.title === item.title);
  switch (state) {
    case "done":
      return same.some((other) => other.status === "done");
    case "open":
      return same.some((other) => other.status === "open") && !same.some((other) => other.status === "done");
    case "cancelled":
      return same.some((other) => other.status === "cancelled" || other.removed);
    case "moved":
      return same.some((other) => other.movedFrom !== undefined);
    case "overdue":
      return same.some(
        (other) =>
          other.status === "open" &&
          (other.scope === "overdue" || (other.date !== undefined && today !== "" && other.date < today)),
      );
  }
}

function shownState(item: ItemFact, today: string): string {
  if (item.status === "done") return "done";
  if (item.status === "cancelled" || item.removed) return "cancelled";
  if (item.family === "task") {
    if (item.date === undefined) return "open, with no due date";
    return item.date < today ? `open and overdue (due ${item.date})` : `open, due ${item.date}`;
  }
  return `on ${item.date ?? "its day"}${item.start ? ` at ${item.start}` : ""}, as planned`;
}
