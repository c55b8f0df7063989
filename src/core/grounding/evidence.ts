import { DateTime } from "luxon";
import { FAILED_CALL_FACTS, type Receipt } from "../domain.ts";
import { coverageOf } from "./coverage.ts";
import { collectFacts } from "./facts.ts";
import { findTimes } from "./times.ts";
import type { CountedList, Evidence, EvidenceText } from "./types.ts";
import { allStems, tokenize } from "./words.ts";

const MAX_DEPTH = 32;
const ISO_DATETIME =
  /\b(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(Z|[+-]\d{2}(?::?\d{2})?)?\b/g;
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/g;
const RFC_2822 = /\b\d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}/;
const COUNT_KEY =
  /count|total|number|^n$|^num|completed|added|removed|created|done|remaining|overdue|changed|updated|deleted/i;

interface Walk {
  zone: string;
  evidence: Evidence;
  /** Argument strings name what the model looked for, not what exists: they back no item. */
  fromArguments: boolean;
  receiptContext: Set<string>;
  toolName: string;
  /** The `count` beside the list being walked: the true length of a list a receipt shortened. */
  listCount?: number | undefined;
}

/**
 * Indexes every string and number of the receipts' results and arguments. Of a failed or refused call
 * only what the failure found out counts (`current`: a server's copy after a refused write); its error
 * message is not data about the user's day.
 */
export function collectEvidence(receipts: readonly Receipt[], zone: string, localDate?: string): Evidence {
  const texts: EvidenceText[] = [];
  const evidence: Evidence = {
    times: new Set(),
    dates: new Set(),
    numbers: [],
    namedCounts: [],
    familyCounts: [],
    subtaskCounts: [],
    lists: [],
    texts,
    coverage: receipts.flatMap((receipt) => coverageOf(receipt) ?? []),
    facts: collectFacts(receipts, zone, localDate ?? ""),
    mentions(phrase) {
      const wanted = tokenize(phrase).join(" ");
      return wanted.length > 0 && texts.some((text) => ` ${text.words} `.includes(` ${wanted} `));
    },
  };
  for (const receipt of receipts) {
    if (receipt.error) {
      const found = factsOfFailed(receipt);
      if (found !== undefined) {
        const receiptContext = new Set(scalarStrings(found).flatMap((text) => tokenize(text)));
        walk(
          found,
          null,
          { zone, evidence, receiptContext, toolName: receipt.toolName, fromArguments: false },
          0,
        );
      }
      continue;
    }
    const receiptContext = new Set<string>();
    for (const text of scalarStrings(receipt.arguments))
      for (const word of tokenize(text)) receiptContext.add(word);
    for (const text of scalarStrings(receipt.result))
      for (const word of tokenize(text)) receiptContext.add(word);
    const base = { zone, evidence, receiptContext, toolName: receipt.toolName };
    walk(receipt.arguments, null, { ...base, fromArguments: true }, 0);
    walk(receipt.result, null, { ...base, fromArguments: false }, 0);
  }
  return evidence;
}

/** What a failed call found out, when its result carries it. */
function factsOfFailed(receipt: Receipt): unknown {
  const result = receipt.result;
  if (typeof result !== "object" || result === null) return undefined;
  return (result as Record<string, unknown>)[FAILED_CALL_FACTS];
}

function walk(value: unknown, key: string | null, state: Walk, depth: number): void {
  if (depth > MAX_DEPTH) return;
  const { evidence } = state;
  if (typeof value === "string") {
    scanString(value, state);
    return;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return;
    evidence.numbers.push(value);
    if (key !== null && COUNT_KEY.test(key) && Number.isInteger(value)) {
      evidence.namedCounts.push(value);
      evidence.familyCounts.push({ family: familyOf(state.toolName), value });
    }
    if (key === "subtasks" && state.toolName === "list_tasks" && !state.fromArguments)
      evidence.subtaskCounts.push(value);
    return;
  }
  if (Array.isArray(value)) {
    if (!state.fromArguments) {
      evidence.lists.push({
        family: familyOf(key ?? state.toolName),
        length: state.listCount ?? value.length,
        context: state.receiptContext,
      });
    }
    for (const element of value) walk(element, null, state, depth + 1);
    return;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    const count = (value as Record<string, unknown>).count;
    const lists = entries.filter(([, field]) => Array.isArray(field)).length;
    const strings = entries.flatMap(([, field]) => (typeof field === "string" ? [field] : []));
    if (strings.length > 1 && !state.fromArguments) addText(evidence, strings.join(" · "));
    for (const [field, inner] of entries) {
      if (Array.isArray(inner) && !state.fromArguments) {
        const context = new Set(state.receiptContext);
        for (const text of strings) for (const word of tokenize(text)) context.add(word);
        const listCount = typeof count === "number" && lists === 1 ? count : undefined;
        walk(inner, field, { ...state, receiptContext: context, listCount }, depth + 1);
      } else {
        walk(inner, field, { ...state, listCount: undefined }, depth + 1);
      }
    }
  }
}

function scanString(text: string, state: Walk): void {
  const { evidence, zone } = state;
  if (!state.fromArguments) addText(evidence, text);
  if (/^([01]\d|2[0-3]):[0-5]\d$/.test(text.trim())) {
    evidence.times.add(text.trim());
    return;
  }
  let rest = text.replace(ISO_DATETIME, (whole, date: string, time: string, offset: string | undefined) => {
    evidence.dates.add(date);
    const instant = DateTime.fromISO(`${date}T${time}${offset ?? ""}`, { zone });
    if (instant.isValid) {
      evidence.dates.add(instant.toISODate() ?? date);
      evidence.times.add(instant.toFormat("HH:mm"));
    }
    return " ".repeat(whole.length);
  });
  if (RFC_2822.test(rest)) {
    const instant = DateTime.fromRFC2822(rest.trim(), { zone });
    if (instant.isValid) {
      evidence.dates.add(instant.toISODate() ?? "");
      evidence.times.add(instant.toFormat("HH:mm"));
    }
  }
  rest = rest.replace(ISO_DATE, (date) => {
    if (DateTime.fromISO(date).isValid) evidence.dates.add(date);
    return " ".repeat(date.length);
  });
  for (const mention of findTimes(rest)) {
    for (const reading of mention.readings) evidence.times.add(reading);
    rest = rest.slice(0, mention.start) + " ".repeat(mention.end - mention.start) + rest.slice(mention.end);
  }
  for (const match of rest.matchAll(/[-−]?\d+(?:\.\d+)?/g)) {
    const value = Number(match[0].replace("−", "-"));
    if (Number.isFinite(value)) evidence.numbers.push(value);
  }
}

function addText(evidence: Evidence, text: string): void {
  const words = tokenize(text).join(" ");
  if (words.length > 0) evidence.texts.push({ words, stems: allStems(text) });
}

function scalarStrings(value: unknown): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
  return Object.values(value).filter((field): field is string => typeof field === "string");
}

function familyOf(name: string): CountedList["family"] {
  const lower = name.toLowerCase();
  if (/task|todo/.test(lower)) return "tasks";
  if (/event|meeting|calendar/.test(lower)) return "events";
  if (/headline|article|news|rss|stor(y|ies)|item/.test(lower)) return "headlines";
  if (/project/.test(lower)) return "projects";
  if (/note/.test(lower)) return "notes";
  return null;
}
