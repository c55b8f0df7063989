/**
 * The edge's side of composition: the Ollama model client from the configured routes, the database ports
 * (with `Sources.refresh` fetching stale weather, calendars and feeds before a briefing) and this process's
 * name as the owner of its runs, handed to `composeCore`. The app, the CLI and the bench build the core here.
 */
import { randomBytes } from "node:crypto";
import type { Database } from "../db/client.ts";
import { createAccounts, createDbPorts, createLeases, createUsers } from "../db/stores/index.ts";
import { lazyAccountProviders } from "./account-providers.ts";
import type { Config } from "./config/config.ts";
import type { AccountProvider } from "./core/accounts/ports.ts";
import { type AccountService, createAccountService, providerRegistry } from "./core/accounts/service.ts";
import type { Clock } from "./core/clock.ts";
import { type Core, composeCore } from "./core/compose.ts";
import type { Logger } from "./core/logger.ts";
import type { ModelClient } from "./core/model.ts";
import type { Ports } from "./core/ports.ts";
import { createModelClient, estimatePromptTokens, type ModelRouter } from "./models/index.ts";
import { createAccountRefresher } from "./sources/accounts/account-sync.ts";
import { createSecretCipher, NO_SECRET_KEY_TEXT } from "./sources/accounts/secret-cipher.ts";
import type { RefreshSources, SourceRefresherOptions } from "./sources/refresh-sources.ts";
import { createSourceLeases, type SourceLeases } from "./sources/source-lease.ts";
import { createOpenMeteoGeocoder } from "./sources/weather/geocoder.ts";

export interface BuildCoreOptions<MODEL extends ModelClient = ModelRouter> {
  db: Database;
  config: Config;
  clock: Clock;
  fetch: typeof fetch;
  logger: Logger;
  /** Replaces the Ollama client built from `config.models` (benches and tests with a scripted model). */
  model?: MODEL;
  /** This process, as the owner of the runs it makes; it must hold its process lease meanwhile. */
  owner: string;
  /** CalDAV / Todoist providers; default: the ones this build has (tests hand in their own). */
  providers?: readonly AccountProvider[];
}

export function buildCore(
  options: BuildCoreOptions,
): Core & { model: ModelRouter; ports: Ports; accounts: AccountService; sourceLeases: SourceLeases };
export function buildCore<MODEL extends ModelClient>(
  options: BuildCoreOptions<MODEL> & { model: MODEL },
): Core & { model: MODEL; ports: Ports; accounts: AccountService; sourceLeases: SourceLeases };
export function buildCore(
  options: BuildCoreOptions<ModelClient>,
): Core & { model: ModelClient; ports: Ports; accounts: AccountService; sourceLeases: SourceLeases } {
  const { db, config } = options;
  const sourceLeases = createSourceLeases(createLeases(db), { owner: options.owner, clock: options.clock });
  const accounts = buildAccountService({
    db,
    config,
    clock: options.clock,
    logger: options.logger,
    ...(options.providers ? { providers: options.providers } : {}),
  });
  const ports = databasePorts(db, {
    fetch: options.fetch,
    clock: options.clock,
    forecastUrl: config.openMeteo.forecastUrl,
    maxAgeMinutes: {
      calendar: config.sync.calendarMinutes,
      feeds: config.sync.feedMinutes,
      weather: config.sync.weatherMinutes,
    },
    logger: options.logger,
    network: config.sources,
    sourceLeases,
    accounts: createAccountRefresher({
      service: accounts,
      listAccounts: (userId) => createAccounts(db).list(userId),
      maxAgeMinutes: config.sync.calendarMinutes,
      now: () => options.clock.now(),
      leases: sourceLeases,
    }),
  });
  const model =
    options.model ??
    createModelClient({ routes: config.models, fetch: options.fetch, logger: options.logger });
  const core = composeCore({
    ports,
    model,
    clock: options.clock,
    ids: () => `runner_${randomBytes(6).toString("hex")}`,
    logger: options.logger,
    selfSignup: config.access.selfSignup,
    geocoder: createOpenMeteoGeocoder(options.fetch, config.openMeteo.geocodingUrl),
    owner: options.owner,
    accounts,
    estimatePromptTokens,
    config: {
      receiptMaxAgeMinutes: config.briefing.receiptMaxAgeMinutes,
      retentionDays: config.briefing.retentionDays,
      confirmationMinutes: config.briefing.confirmationMinutes,
      refreshDeadlineSeconds: config.briefing.refreshDeadlineSeconds,
      runDeadlineSeconds: config.briefing.runDeadlineSeconds,
      chatDeadlineSeconds: config.briefing.chatDeadlineSeconds,
      undoMinutes: config.briefing.undoMinutes,
      staleAfterMinutes: config.briefing.staleAfterMinutes,
      contextTokens: {
        briefing: config.models.routes.briefing.numCtx,
        interactive: config.models.routes.interactive.numCtx,
      },
    },
  });
  // The background loops take the same leases: one process holds a source once, whichever path asks.
  return { ...core, model, ports, accounts, sourceLeases };
}

/**
 * The account service over the database, with the key from the configuration (or none). Without
 * `providers`, the ones this build has, each loaded when an account of its kind is first met. Their
 * addresses (a CalDAV URL, a Todoist base URL) are users' input, so the sources' network policy applies:
 * public addresses only unless the operator opened more. CalDAV writes stamp DTSTAMP and LAST-MODIFIED with
 * the core's clock.
 */
export function buildAccountService(options: {
  db: Database;
  config: Pick<Config, "secretKey" | "sources">;
  clock: Clock;
  logger: Logger;
  providers?: readonly AccountProvider[] | undefined;
}): AccountService {
  const store = createAccounts(options.db);
  const lazy = options.providers
    ? undefined
    : lazyAccountProviders({ network: options.config.sources, clock: options.clock });
  return createAccountService({
    accounts: lazy ? lazy.loadingProviders(store) : store,
    users: createUsers(options.db),
    providers: providerRegistry(options.providers ?? lazy?.providers ?? []),
    cipher: options.config.secretKey ? createSecretCipher(options.config.secretKey) : undefined,
    clock: options.clock,
    logger: options.logger,
    noKeyText: NO_SECRET_KEY_TEXT,
  });
}

/** The core's ports over one database, with `Sources.refresh` fetching stale sources at the edge. */
export function databasePorts(
  db: Database,
  refresh: Omit<SourceRefresherOptions, "db"> & { accounts?: ReturnType<typeof createAccountRefresher> },
): Ports {
  const stores = createDbPorts(db);
  const { accounts, ...rest } = refresh;
  // Loaded at the first refresh: the calendar and feed parsers are not needed to start.
  let refresher: Promise<RefreshSources> | undefined;
  const sources: RefreshSources = async (user, deadline, onStart) => {
    refresher ??= import("./sources/refresh-sources.ts").then(({ createSourceRefresher }) =>
      createSourceRefresher({ db, ...rest }),
    );
    return (await refresher)(user, deadline, onStart);
  };
  // The stores fit the core's ports structurally; this assignment is where the compiler checks it.
  const ports: Ports = {
    ...stores,
    sources: {
      ...stores.sources,
      refresh: accounts
        ? async (user, deadline, onStart) => {
            // Accounts are synced beside the other sources, under the same deadline.
            const [others, ofAccounts] = await Promise.all([
              sources(user, deadline, onStart),
              accounts(user, deadline),
            ]);
            return [...others, ofAccounts];
          }
        : sources,
    },
  };
  return ports;
}
