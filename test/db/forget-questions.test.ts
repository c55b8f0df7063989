/**
 * `/forget` questions in the database: asked through one process's core, answered through another's (a
 * second connection pool on the same database, as a replica or a restarted process has), answered once
 * when two presses race, expired as before, and pruned by maintenance.
 */
import { expect, it } from "vitest";
import { createForgetQuestions, createUserData } from "../../db/stores/index.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { sequentialIds } from "../../src/core/ids.ts";
import { createUserDataService } from "../../src/core/user-data/index.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";

describeEachDatabase("forget questions", (getDb) => {
  /** One process's service over the shared database (fresh memory, as after a restart). */
  const process = (clock = fixedClock("2025-06-02T09:30:00Z"), name = "p") => {
    const db = getDb();
    return createUserDataService(createUserData(db), createForgetQuestions(db), clock, {
      ids: sequentialIds(name),
      questionMinutes: 5,
    });
  };

  it("asks on one process and is answered on another, twice, and only the second Confirm deletes", async () => {
    const user = await createTestUser(getDb());
    const asker = process(undefined, "a");
    const first = await asker.beginForget(user.id);
    // A restart, or the press landing on another replica: nothing of the first process's memory is used.
    const other = process(undefined, "b");
    const again = await other.answerForget(user.id, first.token, true);
    if (again.kind !== "ask-again") throw new Error(`expected the second question, got ${again.kind}`);
    expect(again.question.step).toBe(2);
    expect(await asker.answerForget(user.id, first.token, true)).toEqual({ kind: "stale" });
    const removed = await process(undefined, "c").answerForget(user.id, again.question.token, true);
    expect(removed.kind).toBe("removed");
    expect(await createUserData(getDb()).read(user.id)).toBeUndefined();
  });

  it("counts one of two presses racing on two processes", async () => {
    const user = await createTestUser(getDb());
    const question = await process(undefined, "a").beginForget(user.id);
    const outcomes = await Promise.all([
      process(undefined, "b").answerForget(user.id, question.token, true),
      process(undefined, "c").answerForget(user.id, question.token, true),
    ]);
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(["ask-again", "stale"]);
  });

  it("replaces an open question, ends with nothing deleted on Cancel or another message, and expires", async () => {
    const user = await createTestUser(getDb());
    const clock = fixedClock("2025-06-02T09:30:00Z");
    const service = process(clock, "a");
    const replaced = await service.beginForget(user.id);
    const current = await service.beginForget(user.id);
    expect(await service.answerForget(user.id, replaced.token, true)).toEqual({ kind: "stale" });
    expect(await process(clock, "b").answerForget(user.id, current.token, false)).toEqual({
      kind: "cancelled",
    });
    await service.beginForget(user.id);
    expect(await process(clock, "c").cancelForget(user.id)).toBe(true);
    expect(await service.cancelForget(user.id)).toBe(false);
    const late = await service.beginForget(user.id);
    clock.advance(5 * 60_000);
    expect(await process(clock, "d").answerForget(user.id, late.token, true)).toEqual({ kind: "expired" });
    expect(await createUserData(getDb()).read(user.id)).toBeDefined();
  });

  it("maintenance drops questions expired before a given instant, and only those", async () => {
    const db = getDb();
    const questions = createForgetQuestions(db);
    const [old, recent] = [await createTestUser(db), await createTestUser(db)];
    await questions.ask(old.id, { token: "old1", step: 1, expiresAt: new Date("2025-06-01T00:00:00Z") });
    await questions.ask(recent.id, { token: "new1", step: 2, expiresAt: new Date("2025-06-02T10:00:00Z") });
    expect(await questions.expire(new Date("2025-06-02T00:00:00Z"))).toBeGreaterThanOrEqual(1);
    expect(await questions.answer(old.id, "old1")).toBeUndefined();
    expect(await questions.answer(recent.id, "new1")).toEqual({
      token: "new1",
      step: 2,
      expiresAt: new Date("2025-06-02T10:00:00Z"),
    });
  });
});
