/**
 * The grounding gate's figures per answer, summed: briefings keep their verdict on the run, chat answers
 * on the reply message (`metadata.grounding`). Read at every /metrics scrape.
 */
import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import { briefingRuns, messages } from "../schema/index.ts";

export interface GroundingFigures {
  /** briefing: a run's prose (check-ins included); chat: a follow-up or plain chat reply. */
  answer: "briefing" | "chat";
  action: string;
  answers: number;
  claimsChecked: number;
  corrections: number;
  sentencesRemoved: number;
  unbacked: number;
}

export async function groundingFigures(db: Database): Promise<GroundingFigures[]> {
  const sums = (verdict: ReturnType<typeof sql>) => ({
    action: sql<string>`${verdict}->>'action'`,
    answers: sql<number>`count(*)::int`,
    claimsChecked: sql<number>`coalesce(sum((${verdict}->>'claimsChecked')::int), 0)::int`,
    corrections: sql<number>`coalesce(sum((${verdict}->>'corrections')::int), 0)::int`,
    sentencesRemoved: sql<number>`coalesce(sum((${verdict}->>'removed')::int), 0)::int`,
    unbacked: sql<number>`coalesce(sum(jsonb_array_length(coalesce(${verdict}->'unbacked', '[]'::jsonb))), 0)::int`,
  });
  const runVerdict = sql`${briefingRuns.grounding}`;
  const briefings = await db
    .select(sums(runVerdict))
    .from(briefingRuns)
    .where(isNotNull(briefingRuns.grounding))
    .groupBy(sql`${runVerdict}->>'action'`);
  const replyVerdict = sql`(${messages.metadata}->'grounding')`;
  const replies = await db
    .select(sums(replyVerdict))
    .from(messages)
    .where(
      and(
        eq(messages.role, "assistant"),
        sql`${messages.metadata}->>'kind' = 'reply'`,
        sql`${messages.metadata}->'grounding' is not null`,
      ),
    )
    .groupBy(sql`${replyVerdict}->>'action'`);
  const figures = (answer: GroundingFigures["answer"]) => (row: (typeof briefings)[number]) => ({
    answer,
    action: row.action ?? "unknown",
    answers: Number(row.answers),
    claimsChecked: Number(row.claimsChecked),
    corrections: Number(row.corrections),
    sentencesRemoved: Number(row.sentencesRemoved),
    unbacked: Number(row.unbacked),
  });
  return [...briefings.map(figures("briefing")), ...replies.map(figures("chat"))];
}
