/**
 * A plain chat question whose thread holds no receipts yet ("what meeting do I have today?") starts with
 * today's receipts at hand: the runner makes the chat's coverage calls itself, through the same dispatch,
 * stores them as a runner-made tool turn of the conversation, and hands them to the model as that turn. The
 * model can answer in its first request instead of asking for a tool and waiting a second time.
 */
import { CHAT_COVERAGE } from "../briefing/coverage.ts";
import type { CoreDeps } from "../deps.ts";
import type { MessageLog, TracePart } from "../message-log.ts";
import type { ChatMessage } from "../model.ts";
import { readOnlyChatToolSet } from "../tools/allowlists.ts";
import type { ToolContext } from "../tools/define-tool.ts";
import { dispatchAll } from "../tools/dispatch.ts";
import { toolMessage } from "../tools/tool-loop.ts";

export interface TodayReceipts {
  messages: ChatMessage[];
  recorded: TracePart;
}

export async function todayReceipts(
  deps: CoreDeps,
  context: ToolContext,
  log: MessageLog,
): Promise<TodayReceipts> {
  const calls = CHAT_COVERAGE.map((call, index) => ({
    id: deps.ids(),
    function: { index, name: call.name, arguments: { ...call.arguments } },
  }));
  const outcomes = await dispatchAll(readOnlyChatToolSet(deps.tools), calls, context, { timer: deps.timer });
  const recorded = await log.runnerCalls(outcomes);
  return {
    messages: [{ role: "assistant", content: "", tool_calls: recorded.calls }, ...outcomes.map(toolMessage)],
    recorded,
  };
}
