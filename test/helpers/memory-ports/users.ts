/** The `Users` port in memory, and the writes the CLI makes (a new user, a linked account) for seeding. */
import { DEFAULT_SLOT_TIMES, type Identity, type Platform, type User } from "../../../src/core/domain.ts";
import { NotFoundError } from "../../../src/core/errors.ts";
import type { UserSettingsChanges, Users } from "../../../src/core/ports.ts";
import { copyRow, type MemoryTables, UniqueViolation } from "./tables.ts";

export function createMemoryUsers(tables: MemoryTables): Users {
  return {
    get: async (userId) => {
      const user = tables.users.find((row) => row.id === userId);
      return user && copyRow(user);
    },
    list: async () => [...tables.users].sort((a, b) => compareText(a.name, b.name)).map(copyRow),
    async update(userId, changes: UserSettingsChanges) {
      const user = tables.users.find((row) => row.id === userId);
      if (!user) throw new NotFoundError(`no user with id ${userId}`);
      const { slots, ...rest } = changes;
      for (const [key, value] of Object.entries(rest)) {
        if (value !== undefined) Object.assign(user, { [key]: value });
      }
      if (slots) user.slots = { ...user.slots, ...withoutUndefined(slots) };
      return copyRow(user);
    },
  };
}

/** What `briefbot user add` stores; the name is unique, as the database's index makes it. */
export function insertMemoryUser(
  tables: MemoryTables,
  values: Partial<Omit<User, "id">> & { name: string; timeZone: string },
): User {
  if (tables.users.some((row) => row.name === values.name)) throw new UniqueViolation("users_name_unique");
  const user: User = {
    id: tables.nextId("users"),
    locationName: null,
    latitude: null,
    longitude: null,
    profile: "",
    slots: { ...DEFAULT_SLOT_TIMES },
    briefingMode: "agentic",
    preferredModel: null,
    createdAt: tables.now(),
    ...values,
  };
  tables.users.push(user);
  return copyRow(user);
}

/** Links a platform account to a user; an account already linked elsewhere moves to this user. */
export function linkMemoryIdentity(
  tables: MemoryTables,
  userId: number,
  account: { platform: Platform; externalUserId: string; chatId?: string | null; teamId?: string | null },
): Identity {
  const existing = tables.identities.find(
    (row) => row.platform === account.platform && row.externalUserId === account.externalUserId,
  );
  if (existing) {
    existing.userId = userId;
    if (account.chatId) existing.chatId = account.chatId;
    if (account.teamId) existing.teamId = account.teamId;
    return copyRow(existing);
  }
  const identity: Identity = {
    id: tables.nextId("identities"),
    userId,
    platform: account.platform,
    externalUserId: account.externalUserId,
    chatId: account.chatId ?? null,
    teamId: account.teamId ?? null,
    createdAt: tables.now(),
  };
  tables.identities.push(identity);
  return copyRow(identity);
}

/** Text ordered as PostgreSQL's default collation would for plain ASCII names: by code point. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function withoutUndefined<VALUE extends object>(value: VALUE): Partial<VALUE> {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined),
  ) as Partial<VALUE>;
}
