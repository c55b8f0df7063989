/**
 * Writes a run as it happens: each assistant tool-call turn and each tool result (the receipts) go to the
 * database before the next model request, and the counters the run row keeps add up here.
 */
import type { Database } from "../../../db/client.ts";
import { insertMessages, receiptFromMessage } from "../../../db/queries/messages.ts";
import type { NewStoredMessage } from "../../../db/schema/index.ts";
import type { Receipt } from "../assistant.ts";
import type { ChatResult, ToolCall } from "../model.ts";
import { resultContent, type ToolOutcome } from "../tools/dispatch.ts";

export interface RunStats {
  turns: number;
  toolCalls: number;
  promptTokens: number;
  evalTokens: number;
  endpoint: string | null;
  model: string | null;
  modelMs: number;
  queueWaitMs: number;
  toolsMs: number;
  storageMs: number;
}

export class RunRecorder {
  readonly receipts: Receipt[] = [];
  readonly stats: RunStats = {
    turns: 0,
    toolCalls: 0,
    promptTokens: 0,
    evalTokens: 0,
    endpoint: null,
    model: null,
    modelMs: 0,
    queueWaitMs: 0,
    toolsMs: 0,
    storageMs: 0,
  };
  private runnerCallCount = 0;

  constructor(
    private readonly db: Database,
    private readonly owner: { userId: number; runId: number | null; conversationId: number | null },
    private readonly timer: () => number,
  ) {}

  /** Counts a model request (any: loop turn, coverage finish, correction, legacy synthesis). */
  noteModelCall(result: ChatResult): void {
    this.stats.turns += 1;
    this.stats.promptTokens += result.promptEvalCount ?? 0;
    this.stats.evalTokens += result.evalCount ?? 0;
    this.stats.endpoint = result.endpoint;
    this.stats.model = result.model;
    this.stats.modelMs += result.durationMs;
    this.stats.queueWaitMs += result.queueWaitMs;
  }

  /** A model turn that called tools: its assistant message and every result. */
  async recordModelTurn(result: ChatResult, outcomes: readonly ToolOutcome[]): Promise<void> {
    this.noteModelCall(result);
    if (outcomes.length === 0) return;
    await this.recordCalls(result.toolCalls, result.content, outcomes, "model");
  }

  /** Calls the runner made itself (coverage, legacy gathering, digest): receipts like any other. */
  async recordRunnerCalls(outcomes: readonly ToolOutcome[]): Promise<ToolCall[]> {
    const calls: ToolCall[] = outcomes.map((outcome, index) => ({
      id: outcome.callId ?? `runner_${++this.runnerCallCount}`,
      function: { index, name: outcome.name, arguments: outcome.arguments },
    }));
    await this.recordCalls(
      calls,
      "",
      outcomes.map((outcome, index) => ({ ...outcome, callId: calls[index]?.id })),
      "runner",
    );
    return calls;
  }

  /** The user-visible text of the run or thread: a briefing's prose or a chat answer. */
  async recordAssistantText(content: string, at: Date, metadata: Record<string, unknown>): Promise<number> {
    const [stored] = await this.store([
      { ...this.base(), role: "assistant", content, metadata: { ...metadata }, createdAt: at },
    ]);
    return stored?.id ?? 0;
  }

  async recordUserText(content: string, at: Date): Promise<void> {
    await this.store([{ ...this.base(), role: "user", content, createdAt: at }]);
  }

  private async recordCalls(
    calls: readonly ToolCall[],
    content: string,
    outcomes: readonly ToolOutcome[],
    by: "model" | "runner",
  ): Promise<void> {
    this.stats.toolCalls += outcomes.length;
    // Calls of one turn ran concurrently: the turn took as long as its slowest call.
    this.stats.toolsMs += Math.max(0, ...outcomes.map((outcome) => outcome.durationMs));
    const at = outcomes[0]?.at ?? new Date(0);
    const rows: NewStoredMessage[] = [
      {
        ...this.base(),
        role: "assistant",
        content,
        toolCalls: [...calls],
        metadata: { kind: "tool_calls", by },
        createdAt: at,
      },
      ...outcomes.map(
        (outcome): NewStoredMessage => ({
          ...this.base(),
          role: "tool",
          content: resultContent(outcome),
          toolName: outcome.name,
          toolCallId: outcome.callId ?? null,
          metadata: {
            kind: "receipt",
            by,
            arguments: outcome.arguments,
            error: outcome.error,
            ...(outcome.pending ? { pending_id: outcome.pending.id } : {}),
          },
          createdAt: outcome.at,
        }),
      ),
    ];
    const stored = await this.store(rows);
    for (const row of stored) if (row.role === "tool") this.receipts.push(receiptFromMessage(row));
  }

  private base() {
    return {
      userId: this.owner.userId,
      runId: this.owner.runId,
      conversationId: this.owner.conversationId,
    };
  }

  private async store(rows: NewStoredMessage[]) {
    const startedAt = this.timer();
    try {
      return await insertMessages(this.db, rows);
    } finally {
      this.stats.storageMs += this.timer() - startedAt;
    }
  }
}
