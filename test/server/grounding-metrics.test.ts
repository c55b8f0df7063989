/** The grounding gate's figures per answer (briefing, chat) in /metrics, read from the run and reply records. */
import { expect, it } from "vitest";
import { createMetricsReadings } from "../../db/stores/index.ts";
import { createMetrics } from "../../src/server/metrics.ts";
import { LONDON, seedEvent, seedTasks, seedWeather, testCore } from "../core/fixture.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import { call, scriptedModel } from "../helpers/scripted-model.ts";

const HONEST = '"Renew passport" is due at 14:30 and "File expenses" is overdue.';
const LIE = "Your 10:30 AM meeting is with the design team.";

describeEachDatabase("grounding figures in /metrics", (getDb) => {
  it("counts answers, claims checked, corrections and removed sentences, per briefing and per chat answer", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedTasks(db, user);
    await seedWeather(db);
    await seedEvent(db, user, "Dentist");
    const model = scriptedModel();
    const { assistant } = testCore(db, model);
    // A briefing corrected in one turn, a follow-up whose liar ends in a plain answer, a plain chat trimmed.
    model.script({ content: `${HONEST} ${LIE}` }, { content: HONEST });
    const morning = await assistant.brief(user.id, { slot: "morning" });
    model.script({ content: LIE }, { content: LIE });
    await assistant.reply(
      user.id,
      { platform: "cli", threadKey: "t1", runId: morning.runId },
      "what meeting?",
    );
    model.script(
      { toolCalls: [call("list_tasks", { filter: "due_today" }), call("list_tasks", { filter: "overdue" })] },
      { content: `${HONEST} ${LIE}` },
      { content: `${HONEST} ${LIE}` },
    );
    await assistant.reply(user.id, { platform: "cli", threadKey: "t2" }, "what's up?");

    const body = (await createMetrics({ readings: createMetricsReadings(db) }).render()).body;
    const value = (name: string, labels: string) =>
      Number(new RegExp(`^${name}\\{${labels}\\} (\\d+)$`, "m").exec(body)?.[1]);
    expect(value("briefbot_grounded_answers_total", 'answer="briefing",action="corrected"')).toBe(1);
    expect(value("briefbot_grounded_answers_total", 'answer="chat",action="digest"')).toBe(1);
    expect(value("briefbot_grounded_answers_total", 'answer="chat",action="sentences_removed"')).toBe(1);
    expect(value("briefbot_grounding_claims_corrected_total", 'answer="briefing",action="corrected"')).toBe(
      1,
    );
    expect(
      value("briefbot_grounding_sentences_removed_total", 'answer="chat",action="sentences_removed"'),
    ).toBe(1);
    expect(
      value("briefbot_grounding_claims_checked_total", 'answer="briefing",action="corrected"'),
    ).toBeGreaterThan(1);
    expect(
      value("briefbot_grounding_claims_unbacked_total", 'answer="chat",action="digest"'),
    ).toBeGreaterThanOrEqual(2);
  });
});
