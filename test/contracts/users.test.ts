/**
 * The contract of `Users`: a user read by id, everyone by name, and settings changed with the slots merged
 * (only the named ones change). Held by the in-memory ports and the database stores.
 */
import { expect, it } from "vitest";
import { DEFAULT_SLOT_TIMES } from "../../src/core/domain.ts";
import { describeEachStore } from "./harness.ts";

describeEachStore("users", (world) => {
  it("reads a user with the defaults a new one gets, and lists everyone by name", async () => {
    const { users } = world().ports;
    const suffix = Math.random().toString(36).slice(2, 8);
    const zed = await world().addUser({ name: `zed-${suffix}` });
    const amy = await world().addUser({ name: `amy-${suffix}`, timeZone: "Asia/Tokyo" });
    expect(await users.get(amy.id)).toMatchObject({
      name: `amy-${suffix}`,
      timeZone: "Asia/Tokyo",
      slots: DEFAULT_SLOT_TIMES,
      briefingMode: "agentic",
      profile: "",
      locationName: null,
      preferredModel: null,
    });
    expect(await users.get(zed.id + 10_000)).toBeUndefined();
    const names = (await users.list()).map((user) => user.name).filter((name) => name.endsWith(suffix));
    expect(names).toEqual([`amy-${suffix}`, `zed-${suffix}`]);
  });

  it("refuses a second user of one name", async () => {
    const name = `dup-${Math.random().toString(36).slice(2, 8)}`;
    await world().addUser({ name });
    await expect(world().addUser({ name })).rejects.toThrow();
  });

  it("changes settings, merging slots, and says so when there is no such user", async () => {
    const { users } = world().ports;
    const user = await world().addUser();
    const placed = await users.update(user.id, {
      timeZone: "America/New_York",
      locationName: "New York",
      latitude: 40.71,
      longitude: -74.01,
      slots: { evening: "19:00" },
    });
    expect(placed).toMatchObject({
      timeZone: "America/New_York",
      locationName: "New York",
      latitude: 40.71,
      slots: { ...DEFAULT_SLOT_TIMES, evening: "19:00" },
    });
    const moved = await users.update(user.id, { slots: { morning: null }, briefingMode: "legacy" });
    expect(moved).toMatchObject({
      timeZone: "America/New_York",
      briefingMode: "legacy",
      slots: { ...DEFAULT_SLOT_TIMES, morning: null, evening: "19:00" },
    });
    expect(
      await users.update(user.id, { locationName: null, latitude: null, longitude: null }),
    ).toMatchObject({
      locationName: null,
      latitude: null,
    });
    await expect(users.update(987_654, { timeZone: "UTC" })).rejects.toThrow("no user with id 987654");
  });
});
