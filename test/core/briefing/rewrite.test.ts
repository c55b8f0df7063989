/**
 * The runner's rewrite (the corrective turn) is offered the read-only briefing tools and must still name
 * what the receipts hold: a rewrite that denies them is never delivered; the earlier draft, trimmed, is
 * sent with a digest of the receipts instead.
 */
import { expect, it } from "vitest";
import { CHANGES_SINCE_MORNING_TOOL } from "../../../src/core/briefing/changes-since-morning.ts";
import { BRIEFING_TOOLS } from "../../../src/core/tools/allowlists.ts";
import { call, offeredTools, scriptedModel } from "../../helpers/scripted-model.ts";
import { createTestUser, describeInMemory, getRun, listRunReceipts } from "../../helpers/test-store.ts";
import { LONDON, seedEvent, seedTasks, seedWeather, testCore } from "../fixture.ts";

const DENIAL =
  "I don't have any calendar information for tomorrow. I don't have a list of tasks due today. There is no weather report.";

describeInMemory("the runner's rewrite", (getStore) => {
  async function eveningUser() {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedTasks(store, user);
    await seedWeather(store);
    await seedEvent(store, user, "Team offsite", "2025-06-03T08:00:00Z");
    const model = scriptedModel();
    return { store, user, ...testCore(store, model) };
  }

  it("never delivers an evening rewrite that denies data the receipts hold: the first draft and a digest instead", async () => {
    const { store, user, model, assistant } = await eveningUser();
    model.script(
      {
        content:
          '"Renew passport" is still due today at 14:30. Tomorrow starts with the Team offsite at 09:00. You also have a call with Priya at 16:45.',
      },
      { content: DENIAL },
    );
    const outcome = await assistant.brief(user.id, { slot: "evening" });

    expect(model.requests).toHaveLength(2);
    expect(offeredTools(model.requests[1])).toEqual([...BRIEFING_TOOLS]);
    for (const denied of ["don't have any calendar", "don't have a list", "no weather report", "Priya"]) {
      expect(outcome.prose).not.toContain(denied);
    }
    expect(outcome.prose).toMatch(
      /^"Renew passport" is still due today at 14:30\. Tomorrow starts with the Team offsite at 09:00\.\n\nWhat your data shows:\n/,
    );
    expect(outcome.prose).toContain('Due today: "Renew passport" (due 2025-06-02 14:30, high priority).');
    expect(outcome.prose).toContain("Calendar tomorrow: 09:00–09:30 Team offsite.");
    expect(outcome.grounding?.action).toBe("draft_with_digest");
    const run = await getRun(store, outcome.runId);
    expect(run?.grounding).toMatchObject({ action: "draft_with_digest", corrections: 1, removed: 1 });
    expect(run?.grounding?.unbacked).toEqual(
      // The rewrite loses on these, whatever it says of the weather.
      expect.arrayContaining([
        "Priya",
        "16:45",
        "don't have any calendar information",
        "don't have a list of tasks",
      ]),
    );
  });

  it("lets the corrective turn look something up, storing its call as a receipt of the run", async () => {
    const { store, user, model, assistant } = await eveningUser();
    // The evening's coverage has no high-priority list, so "none" about it has no receipt until the rewrite looks.
    model.script(
      { content: '"Renew passport" is still due today at 14:30. You have no high-priority tasks.' },
      { toolCalls: [call("list_tasks", { filter: "high_priority" })] },
      { content: '"Renew passport" is still due today at 14:30, and it is your one high-priority task.' },
    );
    const outcome = await assistant.brief(user.id, { slot: "evening" });

    expect(outcome.prose).toBe(
      '"Renew passport" is still due today at 14:30, and it is your one high-priority task.',
    );
    expect(outcome.grounding).toMatchObject({ action: "corrected", unbacked: ["no high-priority tasks"] });
    const receipts = await listRunReceipts(store, outcome.runId);
    expect(
      receipts.map((receipt) => [receipt.toolName, receipt.arguments.filter ?? receipt.arguments.range]),
    ).toEqual([
      [CHANGES_SINCE_MORNING_TOOL, undefined],
      ["list_tasks", "completed_recently"],
      ["list_tasks", "due_today"],
      ["list_tasks", "overdue"],
      ["list_events", "tomorrow"],
      ["get_weather", undefined],
      ["list_tasks", "high_priority"],
    ]);
    expect(outcome.statusRow).toBe("✓ checked calendar · ✓ looked at tasks · ✓ pulled weather");
  });
});
