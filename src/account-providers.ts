/**
 * The CalDAV and Todoist providers this build has, each loaded the first time an account of its kind is
 * met. The Todoist SDK (with its own copies of undici and zod) and tsdav cost a process about 40 MB and a
 * third of a second to load; an install without such accounts never needs them.
 *
 * A provider's network calls are asynchronous and load it themselves, but `derive` and `isSeries` are
 * synchronous and the account service calls them on accounts it read from the store, without a network
 * call first (re-deriving the mirror, asking whether an event is a series). So the store handed to the
 * service loads the provider of every account it returns before returning it: by the time the service
 * holds an account, that account's provider is loaded.
 */
import type { AccountProvider, Accounts } from "./core/accounts/ports.ts";
import type { Clock } from "./core/clock.ts";
import type { Account, AccountKind } from "./core/domain.ts";
import type { NetworkPolicy } from "./sources/network/address-policy.ts";

export interface LazyProviders {
  providers: readonly AccountProvider[];
  /** `accounts`, loading the provider of each account it returns first. */
  loadingProviders(accounts: Accounts): Accounts;
}

export function lazyAccountProviders(options: { network: NetworkPolicy; clock: Clock }): LazyProviders {
  const caldav = lazyProvider("caldav", { events: true }, async () =>
    (await import("./sources/accounts/caldav/caldav-provider.ts")).createCaldavProvider({
      network: options.network,
      now: () => options.clock.now(),
    }),
  );
  const todoist = lazyProvider("todoist", { events: false }, async () =>
    (await import("./sources/accounts/todoist/todoist-provider.ts")).createTodoistProvider({
      network: options.network,
    }),
  );
  const byKind = new Map<AccountKind, LazyProvider>([
    ["caldav", caldav],
    ["todoist", todoist],
  ]);
  const ready = async <T>(found: T, accounts: readonly Account[]): Promise<T> => {
    await Promise.all(accounts.map((account) => byKind.get(account.kind)?.load()));
    return found;
  };
  return {
    providers: [caldav.provider, todoist.provider],
    loadingProviders: (accounts) => ({
      ...accounts,
      create: async (account) => {
        const created = await accounts.create(account);
        return ready(created, [created]);
      },
      list: async (userId) => {
        const listed = await accounts.list(userId);
        return ready(listed, listed);
      },
      listAll: async () => {
        const listed = await accounts.listAll();
        return ready(listed, listed);
      },
      get: async (userId, id) => {
        const found = await accounts.get(userId, id);
        return ready(found, found ? [found] : []);
      },
      objectOfTask: async (userId, taskId) => {
        const found = await accounts.objectOfTask(userId, taskId);
        return ready(found, found ? [found.account] : []);
      },
      objectOfEvent: async (userId, eventId) => {
        const found = await accounts.objectOfEvent(userId, eventId);
        return ready(found, found ? [found.account] : []);
      },
    }),
  };
}

interface LazyProvider {
  provider: AccountProvider;
  load(): Promise<AccountProvider>;
}

/**
 * A provider of `kind` that loads the real one on its first asynchronous call (or `load()`). `events` says
 * whether the real one writes events: the service reads the presence of those methods as "this kind holds
 * calendars", so the stand-in has them exactly when the real one does.
 */
function lazyProvider(
  kind: AccountKind,
  shape: { events: boolean },
  create: () => Promise<AccountProvider>,
): LazyProvider {
  let loaded: AccountProvider | undefined;
  let loading: Promise<AccountProvider> | undefined;
  const load = () => {
    loading ??= create().then(
      (provider) => {
        loaded = provider;
        return provider;
      },
      (error: unknown) => {
        // A failed load is tried again on the next call rather than remembered.
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  const now = (): AccountProvider => {
    if (!loaded) throw new Error(`the ${kind} provider was used before it was loaded`);
    return loaded;
  };
  const provider: AccountProvider = {
    kind,
    discover: async (connection) => (await load()).discover(connection),
    sync: async (connection, collection, known) => (await load()).sync(connection, collection, known),
    derive: (object, options) => now().derive(object, options),
    createTask: async (connection, collection, draft) =>
      (await load()).createTask(connection, collection, draft),
    writeTask: async (connection, current, write) => (await load()).writeTask(connection, current, write),
    deleteTask: async (connection, current) => (await load()).deleteTask(connection, current),
  };
  if (!shape.events) return { provider, load };
  const events = async () => {
    const real = await load();
    const { createEvent, writeEvent, deleteEvent } = real;
    if (!createEvent || !writeEvent || !deleteEvent) throw new Error(`the ${kind} provider writes no events`);
    return { createEvent, writeEvent, deleteEvent };
  };
  return {
    load,
    provider: {
      ...provider,
      createEvent: async (connection, collection, draft) =>
        (await events()).createEvent(connection, collection, draft),
      writeEvent: async (connection, current, changes) =>
        (await events()).writeEvent(connection, current, changes),
      deleteEvent: async (connection, current) => (await events()).deleteEvent(connection, current),
      isSeries: (object) => now().isSeries?.(object) ?? false,
    },
  };
}
