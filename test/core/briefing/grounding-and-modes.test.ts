import { expect, it } from "vitest";
import { BRIEFING_TOOLS } from "../../../src/core/tools/allowlists.ts";
import { claimRun } from "../../helpers/runs.ts";
import { offeredTools, requestText, scriptedModel } from "../../helpers/scripted-model.ts";
import {
  createTestUser,
  describeInMemory,
  getRun,
  listRunMessages,
  listRunReceipts,
  updateUser,
} from "../../helpers/test-store.ts";
import {
  LONDON,
  MORNING_COVERAGE,
  seedEvent,
  seedTasks,
  seedWeather,
  TEST_OWNER,
  TODAY,
  testCore,
} from "../fixture.ts";

const HONEST =
  'Good morning. Partly cloudy, 8 to 16 degrees. "Renew passport" is due at 14:30 and "File expenses" is overdue.';

describeInMemory("grounding, legacy and fallbacks", (getStore) => {
  async function morningUser() {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedTasks(store, user);
    await seedWeather(store);
    return user;
  }

  it("catches a fabricated 10:30 meeting, names it in one corrective turn, and keeps the corrected draft", async () => {
    const store = getStore();
    const user = await morningUser();
    const model = scriptedModel();
    const { assistant } = testCore(store, model);
    model.script(
      { content: `${HONEST} You also have a quick meeting at 10:30 AM with the design team.` },
      { content: HONEST },
    );
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    const requests = model.requests;
    expect(requests).toHaveLength(2);
    const correction = String(requests[1]?.messages.at(-1)?.content);
    expect(correction).toContain("not backed by any tool result");
    expect(correction).toMatch(/10:30/);
    // The corrective turn may look things up rather than guess: the same read-only briefing tools.
    expect(offeredTools(requests[1])).toEqual([...BRIEFING_TOOLS]);
    // The correction follows the draft it corrects, with the receipts still above it.
    expect(requests[1]?.messages.at(-2)).toMatchObject({
      role: "assistant",
      content: expect.stringContaining("10:30 AM"),
    });
    expect(outcome.prose).toBe(HONEST);
    expect(outcome.grounding?.action).toBe("corrected");
    expect(outcome.grounding?.unbacked.join(" ")).toMatch(/10:30/);
    const run = await getRun(store, outcome.runId);
    expect(run?.grounding).toMatchObject({ action: "corrected", corrections: 1 });
    expect(run?.grounding?.claimsChecked).toBeGreaterThan(0);
  });

  for (const written of ["10:30", "10:30 AM", "10.30am", "14:45"]) {
    it(`removes the sentence when the second draft still claims a meeting at ${written}`, async () => {
      const store = getStore();
      const user = await morningUser();
      const model = scriptedModel();
      const { assistant } = testCore(store, model);
      const fabricated = `Don't forget the meeting at ${written}.`;
      model.script({ content: `${HONEST} ${fabricated}` }, { content: `${HONEST} ${fabricated}` });
      const outcome = await assistant.brief(user.id, { slot: "morning" });
      expect(outcome.prose).toBe(HONEST);
      expect(outcome.prose).not.toContain(written);
      expect(outcome.grounding?.action).toBe("sentences_removed");
      expect(outcome.mode).toBe("agentic");
    });
  }

  it("falls back to the digest when nothing backed is left", async () => {
    const store = getStore();
    const user = await morningUser();
    const model = scriptedModel();
    const { assistant, logger } = testCore(store, model);
    const invented = "Your team huddle is at 2:30 PM and the Q2 budget draft is due by Friday.";
    model.script({ content: invented }, { content: invented });
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(outcome.mode).toBe("digest");
    expect(outcome.prose).toContain('"Renew passport"');
    expect(outcome.prose).not.toContain("huddle");
    expect(outcome.grounding?.action).toBe("digest");
    expect(logger.warnings.map((warning) => warning.message)).toContain(
      "briefing stayed ungrounded after correction; sending a digest",
    );
  });

  it("legacy mode gathers first, writes every section with 'none' when empty, and stores the data as receipts", async () => {
    const store = getStore();
    const user = await createTestUser(store, { ...LONDON, briefingMode: "legacy" });
    await seedWeather(store);
    await seedEvent(store, user, "Dentist");
    const model = scriptedModel();
    const { assistant } = testCore(store, model);
    model.script({
      content: "Morning! The Dentist is at 09:00; no tasks due and nothing overdue. 8 to 16 degrees.",
    });
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    const requests = model.requests;
    expect(requests).toHaveLength(1);
    expect(requests[0]?.tools).toBeUndefined();
    const data = String(requests[0]?.messages[1]?.content);
    expect(data).toContain("DUE TODAY: none");
    expect(data).toContain("OVERDUE: none");
    expect(data).toContain("HIGH PRIORITY: none");
    expect(data).toContain("ACTIVE PROJECTS: none");
    expect(data).toContain("RECENT NOTES: none");
    expect(data).toContain("NEWS: none");
    expect(data).toContain("TODAY'S EVENTS: \n- 09:00–09:30 Dentist");
    expect(data).toContain("WEATHER: London: partly cloudy, 8°C to 16°C");
    expect(outcome.mode).toBe("legacy");
    expect(outcome.prose).toContain("Dentist is at 09:00");
    // The coverage calls first (receipts first, as in agentic mode), then the sections legacy adds.
    const receipts = await listRunReceipts(store, outcome.runId);
    expect(receipts.map((receipt) => [receipt.toolName, receipt.arguments])).toEqual([
      ...MORNING_COVERAGE,
      ["list_notes", { recent_days: 1 }],
    ]);
    expect((await getRun(store, outcome.runId))?.reason).toBe("briefing_mode is legacy");
  });

  it("falls back to legacy with a warning when the briefing model is too small for tools", async () => {
    const store = getStore();
    const user = await morningUser();
    // What the model layer says of a 1.2B model (test/models/capabilities.test.ts checks it says so).
    const model = scriptedModel({
      name: "llama3.2:1b",
      agentic: () => ({ ok: false, reason: "llama3.2:1b has 1.2B parameters; agentic briefings need ≥ 7B" }),
    });
    const { assistant, logger } = testCore(store, model);
    model.script({ content: HONEST });
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(outcome.mode).toBe("legacy");
    expect(model.requests).toHaveLength(1);
    expect(model.requests.at(-1)?.tools).toBeUndefined();
    expect(requestText(model.requests.at(-1))).toContain("DUE TODAY:");
    const warning = logger.warnings.find((entry) => entry.message.includes("falling back to legacy mode"));
    expect(JSON.stringify(warning?.details)).toMatch(/1\.2B/);
    expect((await getRun(store, outcome.runId))?.reason).toMatch(/agentic mode unavailable/);
  });

  it("honours briefing_mode changed after the user was created", async () => {
    const store = getStore();
    const user = await morningUser();
    await updateUser(store, user.id, { briefingMode: "legacy" });
    const model = scriptedModel();
    model.script({ content: HONEST });
    const legacy = await testCore(store, model).assistant.brief(user.id, { slot: "morning" });
    expect(legacy.mode).toBe("legacy");
    expect(model.requests).toHaveLength(1);
  });

  it("runs a run the scheduler claimed and finishes it as generated", async () => {
    const store = getStore();
    const user = await morningUser();
    const claimed = await claimRun(
      store,
      { userId: user.id, slot: "midday", localDate: TODAY },
      new Date("2025-06-02T06:00:00Z"),
      TEST_OWNER,
    );
    const model = scriptedModel();
    const { generateBriefing } = testCore(store, model);
    model.script({ content: '"Renew passport" is still due at 14:30. Nothing on your calendar today.' });
    const outcome = await generateBriefing({ user, slot: "midday", runId: claimed.id });
    expect(outcome.runId).toBe(claimed.id);
    expect(await getRun(store, claimed.id)).toMatchObject({
      state: "generated",
      trigger: "schedule",
      mode: "agentic",
    });
    const stored = await listRunMessages(store, claimed.id);
    expect(stored.at(-1)?.metadata).toMatchObject({ briefing_slot: "midday" });
    expect(model.requests.at(-1)?.messages[0]?.content).toContain("brief midday check-in");

    const intruder = await createTestUser(store, LONDON);
    await expect(generateBriefing({ user: intruder, slot: "midday", runId: claimed.id })).rejects.toThrow();
  });
});
