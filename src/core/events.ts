/**
 * What a briefing reports while it runs, as typed events; platforms and the CLI decide how they look, and
 * `progressLine` gives them the same words ("refreshing weather and calendars…", "✓ list_events").
 */
import type { SourceKind, SourceRefresh } from "./ports.ts";

export type BriefingEvent =
  /** Stale sources are being fetched before the model looks (sent once, and only when something is stale). */
  | { type: "refresh-start"; sources: readonly SourceKind[] }
  /** A kind of source was brought up to date, was fresh already, or could not be (its last good data stays). */
  | { type: "refresh-end"; source: SourceKind; status: SourceRefresh["status"]; detail?: string }
  /** One model request of the run finished. */
  | { type: "model-turn"; turn: number; toolCalls: number; model: string; endpoint: string }
  /** One tool call finished: the model's own, or one the runner made (receipts first, legacy, digest). */
  | { type: "tool-result"; tool: string; ok: boolean; by: "model" | "runner" };

export type BriefingObserver = (event: BriefingEvent) => void;

/** Calls the observer without letting a broken renderer stop the briefing. */
export function notifier(observer: BriefingObserver | undefined): BriefingObserver {
  return (event) => {
    try {
      observer?.(event);
    } catch {
      // Progress is for show; the run goes on.
    }
  };
}

const SOURCE_WORDS: Record<SourceKind, string> = {
  weather: "weather",
  calendar: "calendars",
  feeds: "feeds",
  accounts: "task and calendar accounts",
};

/**
 * The line a person sees for an event, or undefined for events not worth a line (a model turn, a source
 * that was fresh and needed no fetch).
 */
export function progressLine(event: BriefingEvent): string | undefined {
  switch (event.type) {
    case "refresh-start":
      return `refreshing ${joinWords(event.sources.map((source) => SOURCE_WORDS[source]))}…`;
    case "refresh-end":
      if (event.status === "refreshed") return `✓ ${SOURCE_WORDS[event.source]} refreshed`;
      if (event.status === "failed")
        return `✗ ${SOURCE_WORDS[event.source]}: ${event.detail ?? "could not be refreshed"}`;
      return undefined;
    case "tool-result":
      return `${event.ok ? "✓" : "✗"} ${event.tool}`;
    case "model-turn":
      return undefined;
  }
}

function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}
