/**
 * The contract of `Invites`: a code links once (also when two redeem it at once), expired and replaced codes
 * are refused like wrong ones, failed attempts are counted per sender, and self-signup picks a free name.
 * Held by the in-memory ports and the database stores.
 */
import { expect, it } from "vitest";
import { describeEachStore } from "./harness.ts";

const at = new Date("2025-06-02T06:00:00Z");
const hours = (count: number) => new Date(at.getTime() + count * 3_600_000);
let senders = 0;
const stranger = () => ({ platform: "telegram" as const, externalUserId: `${7_300_000 + ++senders}` });
const codeOf = () => `CODE${Math.random().toString(36).slice(2, 10).toUpperCase()}`;

describeEachStore("invites", (world) => {
  it("links a code once, to its user, with where to reach the sender", async () => {
    const { invites } = world().ports;
    const user = await world().addUser();
    const code = codeOf();
    expect(await invites.issue({ userId: user.id, code, createdAt: at, expiresAt: hours(24) })).toEqual({
      replaced: 0,
    });
    const ann = { ...stranger(), chatId: "555" };
    const races = await Promise.all([
      invites.redeem(code, ann, hours(1)),
      invites.redeem(code, stranger(), hours(1)),
    ]);
    expect(races.filter((result) => result.kind === "linked")).toHaveLength(1);
    expect(races.filter((result) => result.kind === "invalid")).toHaveLength(1);
    const linked = races.find((result) => result.kind === "linked");
    expect(linked).toMatchObject({ account: { user: { id: user.id } } });
    expect(await invites.redeem(code, stranger(), hours(2))).toEqual({ kind: "invalid" });
    expect(await invites.redeem(codeOf(), stranger(), hours(2))).toEqual({ kind: "invalid" });
  });

  it("refuses an expired code and one a re-invite replaced", async () => {
    const { invites } = world().ports;
    const user = await world().addUser();
    const [expiring, replaced, current] = [codeOf(), codeOf(), codeOf()];
    await invites.issue({ userId: user.id, code: expiring, createdAt: at, expiresAt: hours(1) });
    expect(await invites.redeem(expiring, stranger(), hours(1))).toEqual({ kind: "invalid" });
    await invites.issue({ userId: user.id, code: replaced, createdAt: hours(2), expiresAt: hours(26) });
    expect(
      await invites.issue({ userId: user.id, code: current, createdAt: hours(3), expiresAt: hours(27) }),
    ).toEqual({
      replaced: 1,
    });
    expect(await invites.redeem(replaced, stranger(), hours(4))).toEqual({ kind: "invalid" });
    expect((await invites.redeem(current, stranger(), hours(4))).kind).toBe("linked");
  });

  it("spends nothing for an account linked already", async () => {
    const { invites } = world().ports;
    const owner = await world().addUser();
    const user = await world().addUser();
    const sender = stranger();
    await world().linkAccount(owner.id, sender);
    const code = codeOf();
    await invites.issue({ userId: user.id, code, createdAt: at, expiresAt: hours(24) });
    expect(await invites.redeem(code, sender, hours(1))).toMatchObject({
      kind: "already-linked",
      account: { user: { id: owner.id } },
    });
    expect(await invites.redeem(code, stranger(), hours(1))).toMatchObject({ kind: "linked" });
  });

  it("counts failed attempts per sender, forgets old ones, and clears a sender's on success", async () => {
    const { invites } = world().ports;
    const user = await world().addUser();
    const sender = stranger();
    const other = stranger();
    await invites.recordFailure(sender, hours(0), hours(-1));
    await invites.recordFailure(sender, hours(1), hours(-1));
    await invites.recordFailure(other, hours(1), hours(-1));
    expect(await invites.failuresSince(sender, hours(0))).toEqual([hours(0), hours(1)]);
    expect(await invites.failuresSince(sender, hours(1))).toEqual([hours(1)]);
    // Older than `forgetBefore`, anyone's go.
    await invites.recordFailure(other, hours(3), hours(0.5));
    expect(await invites.failuresSince(sender, hours(-5))).toEqual([hours(1)]);
    const code = codeOf();
    await invites.issue({ userId: user.id, code, createdAt: hours(3), expiresAt: hours(27) });
    await invites.redeem(code, sender, hours(4));
    expect(await invites.failuresSince(sender, hours(-5))).toEqual([]);
    expect(await invites.failuresSince(other, hours(-5))).toEqual([hours(1), hours(3)]);
  });

  it("signs up a newcomer under a free name, and only once per account", async () => {
    const { invites } = world().ports;
    const name = `newcomer${Math.random().toString(36).slice(2, 8)}`;
    await world().addUser({ name });
    const sender = { ...stranger(), chatId: "42" };
    const first = await invites.signup({ name, timeZone: "UTC" }, sender, at);
    expect(first).toMatchObject({
      kind: "linked",
      account: { user: { name: `${name}-2`, timeZone: "UTC" }, identity: { chatId: "42" } },
    });
    const second = await invites.signup({ name, timeZone: "UTC" }, stranger(), at);
    expect(second).toMatchObject({ kind: "linked", account: { user: { name: `${name}-3` } } });
    expect(await invites.signup({ name, timeZone: "UTC" }, sender, at)).toMatchObject({
      kind: "already-linked",
      account: { user: { name: `${name}-2` } },
    });
  });
});
