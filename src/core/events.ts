/**
 * What a briefing reports while it runs, as typed events; platforms and the CLI decide how they look
 * (today: a "✓ list_events" line per tool result).
 */
import type { SourceRefresh } from "./ports.ts";

export type BriefingEvent =
  /** A source was brought up to date (or could not be) before the model looked. */
  | { type: "refresh"; source: SourceRefresh["source"]; status: SourceRefresh["status"]; detail?: string }
  /** One model request of the run finished. */
  | { type: "model-turn"; turn: number; toolCalls: number; model: string; endpoint: string }
  /** One tool call finished: the model's own, or one the runner made (coverage, legacy, digest, check-in). */
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
