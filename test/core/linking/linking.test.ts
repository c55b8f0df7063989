/**
 * Linking by one-time code, over the real invite store on both databases: what is stored, single use (also
 * under two concurrent redeems), expiry on a fixed clock, the per-sender rate limit, re-invites and signup.
 */
// Left on the databases, unlike the other core suites: it reads the stored rows to show that only a hash of
// a code is kept and that deleting a user cascades to their invites, and on PostgreSQL it holds a competing
// transaction open to show a signup that loses the unique index's race takes the next name — what SQL does,
// which no in-memory port can stand in for. The `Invites` port's rules are in test/contracts/invites.test.ts.
import { eq } from "drizzle-orm";
import { expect, it } from "vitest";
import type { Database } from "../../../db/client.ts";
import { hashCode } from "../../../db/queries/invites.ts";
import { linkIdentity } from "../../../db/queries/users.ts";
import { identities, invites, linkAttempts, users } from "../../../db/schema/index.ts";
import { createDbPorts } from "../../../db/stores/index.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { normaliseCode } from "../../../src/core/linking/code.ts";
import { createLinking, MAX_FAILED_ATTEMPTS } from "../../../src/core/linking/linking.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";

const MINUTE = 60_000;
const HOUR = 3_600_000;
let senders = 0;
/** A fresh Telegram account per call, so tests sharing a database never share a sender. */
const stranger = () => ({ platform: "telegram" as const, externalUserId: `${9_100_000 + ++senders}` });

function linkingOver(db: Database, options: { selfSignup?: boolean } = {}) {
  const clock = fixedClock("2025-06-02T06:00:00Z");
  const ports = createDbPorts(db);
  const linking = createLinking({
    invites: ports.invites,
    platformState: ports.platformState,
    clock,
    selfSignup: options.selfSignup,
  });
  return { clock, linking };
}

describeEachDatabase("linking by one-time code", (getDb, kind) => {
  it("stores only a hash of the code, links once, and a second use is refused", async () => {
    const db = getDb();
    const { linking } = linkingOver(db);
    const user = await createTestUser(db);
    const invite = await linking.invite(user.id);
    expect(invite.code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(invite.expiresAt.toISOString()).toBe("2025-06-03T06:00:00.000Z");

    const rows = await db.select().from(invites).where(eq(invites.userId, user.id));
    expect(rows).toHaveLength(1);
    const normalised = normaliseCode(invite.code) ?? "";
    expect(rows[0]?.codeHash).toBe(hashCode(normalised));
    expect(JSON.stringify(rows)).not.toContain(normalised);
    expect(JSON.stringify(rows)).not.toContain(invite.code);

    const ann = { ...stranger(), chatId: "555" };
    // Typed sloppily: lower case, spaces instead of the dash.
    const linked = await linking.link(ann, ` ${invite.code.toLowerCase().replace("-", " ")} `);
    expect(linked).toMatchObject({
      kind: "linked",
      signedUp: false,
      account: { user: { id: user.id }, identity: { externalUserId: ann.externalUserId, chatId: "555" } },
    });

    const bob = stranger();
    expect(await linking.link(bob, invite.code)).toEqual({ kind: "refused" });
    expect(
      await db.select().from(identities).where(eq(identities.externalUserId, bob.externalUserId)),
    ).toEqual([]);
  });

  it("links once when two accounts redeem the same code at the same time", async () => {
    const db = getDb();
    const { linking } = linkingOver(db);
    const user = await createTestUser(db);
    const { code } = await linking.invite(user.id);
    const outcomes = await Promise.all([linking.link(stranger(), code), linking.link(stranger(), code)]);
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(["linked", "refused"]);
    expect(await db.select().from(identities).where(eq(identities.userId, user.id))).toHaveLength(1);
  });

  it("refuses an expired code the same way as a wrong one", async () => {
    const db = getDb();
    const { clock, linking } = linkingOver(db);
    const user = await createTestUser(db);
    const { code } = await linking.invite(user.id, 2 * HOUR);
    clock.advance(2 * HOUR);
    const late = stranger();
    expect(await linking.link(late, code)).toEqual({ kind: "refused" });
    expect(await linking.link(late, "ZZZZ-ZZZZ")).toEqual({ kind: "refused" });
    expect(await linking.link(late, "not a code")).toEqual({ kind: "refused" });
    expect(await db.select().from(identities).where(eq(identities.userId, user.id))).toEqual([]);
  });

  it("a re-invite retires the user's earlier unused code", async () => {
    const db = getDb();
    const { linking } = linkingOver(db);
    const user = await createTestUser(db);
    const first = await linking.invite(user.id);
    expect(first.replaced).toBe(0);
    const second = await linking.invite(user.id);
    expect(second.replaced).toBe(1);
    expect(await linking.link(stranger(), first.code)).toEqual({ kind: "refused" });
    expect(await linking.link(stranger(), second.code)).toMatchObject({ kind: "linked" });
  });

  it("makes a sender wait after five wrong codes, even with a right one, and says how long is left", async () => {
    const db = getDb();
    const { clock, linking } = linkingOver(db);
    const user = await createTestUser(db);
    const { code } = await linking.invite(user.id, 48 * HOUR);
    const guesser = stranger();
    expect(await linking.link(guesser, "AAAA-AAAX")).toEqual({ kind: "refused" });
    clock.advance(10 * MINUTE);
    for (let i = 1; i < MAX_FAILED_ATTEMPTS; i += 1)
      expect(await linking.link(guesser, `AAAA-AAA${i}`)).toEqual({ kind: "refused" });
    // The hour runs from the oldest of the five failures, ten minutes ago.
    expect(await linking.link(guesser, code)).toEqual({ kind: "rate-limited", retryAfterMinutes: 50 });
    // Another sender is not held up by the guesser.
    const other = stranger();
    expect(await linking.link(other, "AAAA-AAAA")).toEqual({ kind: "refused" });
    clock.advance(49 * MINUTE + 30_000);
    expect(await linking.link(guesser, code)).toEqual({ kind: "rate-limited", retryAfterMinutes: 1 });
    clock.advance(30_001);
    expect(await linking.link(guesser, code)).toMatchObject({ kind: "linked" });
    const left = await db
      .select()
      .from(linkAttempts)
      .where(eq(linkAttempts.externalUserId, guesser.externalUserId));
    expect(left).toEqual([]);
  });

  it("an account linked already is told so and spends nothing", async () => {
    const db = getDb();
    const { linking } = linkingOver(db);
    const owner = await createTestUser(db);
    const other = await createTestUser(db);
    const account = stranger();
    await linkIdentity(db, owner.id, account);
    const { code } = await linking.invite(other.id);
    expect(await linking.link(account, code)).toMatchObject({
      kind: "already-linked",
      account: { user: { id: owner.id } },
    });
    expect(await linking.link(stranger(), code)).toMatchObject({
      kind: "linked",
      account: { user: { id: other.id } },
    });
  });

  it("without a code: asks for one when self-signup is off, creates a UTC user when it is on", async () => {
    const db = getDb();
    const off = linkingOver(db).linking;
    const newcomer = stranger();
    expect(await off.link(newcomer, "", { username: "zed" })).toEqual({ kind: "code-needed" });

    const on = linkingOver(db, { selfSignup: true }).linking;
    const taken = await createTestUser(db, { name: "zed" });
    const outcome = await on.link(newcomer, "", { username: "zed" });
    expect(outcome).toMatchObject({
      kind: "linked",
      signedUp: true,
      account: { user: { name: "zed-2", timeZone: "UTC" } },
    });
    expect(outcome.kind === "linked" && outcome.account.user.id).not.toBe(taken.id);
    expect(await on.link(newcomer, "")).toMatchObject({ kind: "already-linked" });
    expect(await db.select().from(users).where(eq(users.name, "zed-3"))).toEqual([]);
  });

  it("two newcomers with one username both get a user, under different names", async () => {
    const db = getDb();
    const { linking } = linkingOver(db, { selfSignup: true });
    const outcomes = await Promise.all([
      linking.link(stranger(), "", { username: "twin" }),
      linking.link(stranger(), "", { username: "twin" }),
    ]);
    const names = outcomes.map((outcome) =>
      outcome.kind === "linked" ? outcome.account.user.name : outcome.kind,
    );
    expect(names.sort()).toEqual(["twin", "twin-2"]);
  });

  // Only a server has a second connection to hold a competing insert open.
  it.runIf(kind === "postgres")("a signup that loses the race for a name takes the next one", async () => {
    const db = getDb();
    const { linking } = linkingOver(db, { selfSignup: true });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted = () => {};
    const didInsert = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const competitor = db.transaction(async (tx) => {
      await tx.insert(users).values({ name: "racer", timeZone: "UTC" });
      inserted();
      await held;
    });
    await didInsert;
    const signup = linking.link(stranger(), "", { username: "racer" });
    // Long enough for the signup to find "racer" free and block on the competitor's uncommitted row.
    await new Promise((resolve) => setTimeout(resolve, 500));
    release();
    await competitor;
    expect(await signup).toMatchObject({ kind: "linked", account: { user: { name: "racer-2" } } });
  });

  it("deleting a user deletes their invites", async () => {
    const db = getDb();
    const { linking } = linkingOver(db);
    const user = await createTestUser(db);
    await linking.invite(user.id);
    await db.delete(users).where(eq(users.id, user.id));
    expect(await db.select().from(invites).where(eq(invites.userId, user.id))).toEqual([]);
  });
});
