/**
 * Scores the gate on the corpus, sentence by sentence, on both paths that reach a user:
 * - briefing: the receipts as the runner hands them to the gate (the run's trace), the options the
 *   briefing's ground step makes;
 * - chat: the same receipts stored as tool messages and read back the way a chat answer reads its
 *   context (`receiptsOfMessages`), the options chat makes.
 * Each sentence goes through the real gate (`groundAnswer`) with a corrective turn that writes nothing, so
 * what comes out is exactly what the gate alone lets through: an honest sentence is kept when it comes out
 * whole, a lie is stopped when it does not.
 */
import { receiptsOfMessages } from "../../../../src/core/chat/context-receipts.ts";
import type { LoggedMessage, Receipt } from "../../../../src/core/domain.ts";
import { groundAnswer } from "../../../../src/core/grounding/gate.ts";
import { gateOptions } from "../../../../src/core/grounding/options.ts";
import { DAYS, type PlantedDay, USER } from "./days.ts";
import type { CorpusSentence, LieKind } from "./sentences.ts";

export type GatePath = "briefing" | "chat";

export interface SentenceResult {
  entry: CorpusSentence;
  kept: boolean;
  /** Right when an honest sentence is kept or a lie is stopped. */
  right: boolean;
  unbacked: string[];
}

export interface KindScore {
  kind: LieKind;
  honest: number;
  honestKept: number;
  lies: number;
  liesStopped: number;
}

export interface CorpusScore {
  results: SentenceResult[];
  kinds: KindScore[];
  honest: number;
  honestKept: number;
  lies: number;
  liesStopped: number;
  /** Milliseconds the gate took per sentence, on average. */
  msPerSentence: number;
}

/** The receipts as chat reads them: stored as tool messages (JSON content), then read back. */
export function asChatReceipts(receipts: readonly Receipt[]): Receipt[] {
  const messages: LoggedMessage[] = receipts.map((receipt) => ({
    id: receipt.id,
    userId: 1,
    conversationId: 1,
    runId: receipt.runId,
    role: "tool",
    content: JSON.stringify(receipt.result),
    toolCalls: null,
    toolName: receipt.toolName,
    toolCallId: `call_${receipt.id}`,
    metadata: { kind: "receipt", arguments: receipt.arguments, error: receipt.error },
    createdAt: receipt.at,
  }));
  return receiptsOfMessages(messages);
}

function nowOf(day: PlantedDay): Date {
  // London in December is UTC.
  return new Date(`${day.localDate}T${day.localTime}:00Z`);
}

export async function scoreSentence(entry: CorpusSentence, path: GatePath): Promise<SentenceResult> {
  const day = DAYS[entry.day];
  if (!day) throw new Error(`no planted day "${entry.day}"`);
  const receipts = path === "chat" ? asChatReceipts(day.receipts) : day.receipts;
  const options =
    path === "chat" ? gateOptions(USER, nowOf(day)) : gateOptions(USER, nowOf(day), day.localDate);
  const gate = await groundAnswer({
    draft: entry.text,
    receipts,
    options,
    rewrite: async () => ({ text: undefined, receipts: [] }),
    ...(path === "chat" ? { subject: { text: "your answer", source: "this conversation" } } : {}),
  });
  const kept = gate.kind !== "unbacked" && gate.text.trim() === entry.text.trim();
  return { entry, kept, right: kept === entry.honest, unbacked: gate.verdict.unbacked };
}

export async function scoreCorpus(entries: readonly CorpusSentence[], path: GatePath): Promise<CorpusScore> {
  const results: SentenceResult[] = [];
  const started = performance.now();
  for (const entry of entries) results.push(await scoreSentence(entry, path));
  const elapsed = performance.now() - started;
  const kinds = new Map<LieKind, KindScore>();
  for (const result of results) {
    const kind = result.entry.kind;
    const score = kinds.get(kind) ?? { kind, honest: 0, honestKept: 0, lies: 0, liesStopped: 0 };
    if (result.entry.honest) {
      score.honest += 1;
      if (result.kept) score.honestKept += 1;
    } else {
      score.lies += 1;
      if (!result.kept) score.liesStopped += 1;
    }
    kinds.set(kind, score);
  }
  const all = [...kinds.values()];
  const sum = (pick: (score: KindScore) => number) => all.reduce((total, score) => total + pick(score), 0);
  return {
    results,
    kinds: all.sort((a, b) => a.kind.localeCompare(b.kind)),
    honest: sum((score) => score.honest),
    honestKept: sum((score) => score.honestKept),
    lies: sum((score) => score.lies),
    liesStopped: sum((score) => score.liesStopped),
    msPerSentence: results.length === 0 ? 0 : elapsed / results.length,
  };
}
