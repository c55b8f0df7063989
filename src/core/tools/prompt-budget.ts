/**
 * The prompt budget: every request of a tool loop must fit a share of the route's `num_ctx`, because Ollama
 * does not refuse an overlong prompt, it silently drops its oldest messages (the receipts) or cuts it to
 * about half. The conversation keeps every tool result whole; what is sent is a view of it in which the
 * longest lists show fewer items, each still ending with the note that says how many are left out.
 */
import type { ChatMessage, ToolSchema } from "../model.ts";
import { type ListCaps, MODEL_LIST_LIMITS, modelView } from "./model-view.ts";

/** Estimated prompt tokens of a request (the model layer's estimator, handed to the core). */
export type PromptEstimator = (
  messages: readonly ChatMessage[],
  tools: readonly ToolSchema[] | undefined,
) => number;

export interface PromptBudget {
  /** Estimated tokens no request may exceed. */
  readonly tokens: number;
  readonly estimate: PromptEstimator;
}

/**
 * The prompt's share of `num_ctx`: Ollama cuts a prompt past about half of it (#17427, as in the test
 * server), and the estimator's four characters a token runs short on JSON, so 15 % of that half is margin.
 * Each turn is fitted anew, so the next turn's room needs no reserve of its own.
 */
export const PROMPT_SHARE = 0.5 * 0.85;

/** A list is never cut below this many items: a model shown nothing of it cannot say what it holds. */
export const MIN_SHOWN = 2;

export function promptBudget(numCtx: number, estimate: PromptEstimator): PromptBudget {
  return { tokens: Math.floor(numCtx * PROMPT_SHARE), estimate };
}

export interface FittedPrompt {
  /** The messages to send: tool results as the model is shown them. */
  readonly messages: ChatMessage[];
  /** The caps the messages were cut at; the next request starts from these. */
  readonly caps: ListCaps;
  readonly tokens: number;
  /** False when even the shortest lists leave the prompt over budget (it is sent anyway). */
  readonly fits: boolean;
}

/**
 * The request's messages with every tool result cut at `caps` (at most the usual limits), lowered further
 * until the estimate fits the budget: each round shortens the kind of list whose longest shown list weighs
 * most, by a quarter of that list, so the longest lists lose items first and short ones keep theirs. Caps
 * only go down over a run, so a list the model was shown shortened never grows back between turns.
 */
export function fitPrompt(
  messages: readonly ChatMessage[],
  tools: readonly ToolSchema[] | undefined,
  budget: PromptBudget | undefined,
  start: ListCaps = MODEL_LIST_LIMITS,
): FittedPrompt {
  const results = messages.map(parsedResult);
  let caps: Record<string, number> = { ...MODEL_LIST_LIMITS };
  for (const [key, cap] of Object.entries(start)) caps[key] = Math.min(cap, caps[key] ?? cap);
  for (;;) {
    const sent = messages.map((message, index) => shownMessage(message, results[index], caps));
    const tokens = budget ? budget.estimate(sent, tools) : 0;
    if (!budget || tokens <= budget.tokens) return { messages: sent, caps, tokens, fits: true };
    const cut = heaviestList(results, caps);
    if (!cut) return { messages: sent, caps, tokens, fits: false };
    caps = { ...caps, [cut.key]: Math.max(MIN_SHOWN, cut.shown - Math.max(1, Math.floor(cut.shown / 4))) };
  }
}

/** A tool message's result, parsed once per fit; undefined for other messages and results that are not JSON. */
function parsedResult(message: ChatMessage): Record<string, unknown> | undefined {
  if (message.role !== "tool") return undefined;
  try {
    const parsed: unknown = JSON.parse(message.content);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function shownMessage(
  message: ChatMessage,
  result: Record<string, unknown> | undefined,
  caps: ListCaps,
): ChatMessage {
  if (message.role !== "tool" || result === undefined) return message;
  const view = modelView(result, caps);
  return view === result ? message : { ...message, content: JSON.stringify(view) };
}

/** The kind of list to shorten next: the one whose longest list, as shown now, is the most characters. */
function heaviestList(
  results: ReadonlyArray<Record<string, unknown> | undefined>,
  caps: ListCaps,
): { key: string; shown: number } | undefined {
  let heaviest: { key: string; shown: number; chars: number } | undefined;
  for (const result of results) {
    if (!result) continue;
    for (const [key, cap] of Object.entries(caps)) {
      const list = result[key];
      if (!Array.isArray(list)) continue;
      const shown = Math.min(cap, list.length);
      if (shown <= MIN_SHOWN) continue;
      const chars = JSON.stringify(list.slice(0, shown)).length;
      if (!heaviest || chars > heaviest.chars) heaviest = { key, shown, chars };
    }
  }
  return heaviest;
}
