/**
 * Account syncs at the edge: the background loop over every account, and the refresh before a briefing
 * for one user's stale accounts. Either way an account is synced by one process at a time (its source
 * lease); a sync another process is running is skipped in the background and waited for before a
 * briefing, whose deadline bounds the wait.
 */
import type { AccountService } from "../../core/accounts/service.ts";
import type { Account, User } from "../../core/domain.ts";
import { errorMessage } from "../../core/errors.ts";
import type { SourceRefresh } from "../../core/ports.ts";
import { type PeriodicSync, type SyncLogger, startPeriodicSync } from "../periodic-sync.ts";
import { type SourceLeases, sourceLeaseName, unsharedSources } from "../source-lease.ts";

export function startAccountSync(options: {
  service: AccountService;
  intervalMs: number;
  logger?: SyncLogger | undefined;
  leases?: SourceLeases | undefined;
}): PeriodicSync {
  const leases = options.leases ?? unsharedSources;
  return startPeriodicSync({
    name: "accounts",
    intervalMs: options.intervalMs,
    logger: options.logger,
    run: () =>
      options.service.syncAll(async (account, run) => {
        const outcome = await leases.exclusive(sourceLeaseName.account(account.id), run);
        if (outcome.ran && outcome.value.error)
          options.logger?.warn({ accountId: account.id, error: outcome.value.error }, "account sync failed");
      }),
  });
}

/** The accounts part of `Sources.refresh`: the user's accounts older than `maxAgeMinutes`, before `deadline`. */
export function createAccountRefresher(options: {
  service: AccountService;
  listAccounts: (userId: number) => Promise<Account[]>;
  maxAgeMinutes: number;
  now: () => Date;
  leases?: SourceLeases | undefined;
}) {
  const leases = options.leases ?? unsharedSources;
  return async (user: User, deadline: Date): Promise<SourceRefresh> => {
    const now = options.now();
    const all = await options.listAccounts(user.id);
    if (all.length === 0) return { source: "accounts", status: "skipped" };
    const due = all.filter(
      (account) =>
        !account.lastSyncAt ||
        account.lastError !== null ||
        now.getTime() - account.lastSyncAt.getTime() >= options.maxAgeMinutes * 60_000,
    );
    if (due.length === 0) return { source: "accounts", status: "fresh" };
    const failures: string[] = [];
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), Math.max(1, deadline.getTime() - now.getTime()));
    });
    const work = Promise.all(
      due.map(async (account) => {
        try {
          const name = sourceLeaseName.account(account.id);
          const outcome = await leases.exclusive(name, () => options.service.syncAccount(account));
          if (outcome.ran) {
            if (outcome.value.error) failures.push(`could not sync ${account.label}`);
          } else if (!(await leases.waitFree(name, deadline))) {
            // Still another process's at the deadline: what this briefing reads is not refreshed.
            failures.push(`${account.label} was still syncing in another process`);
          }
        } catch (error) {
          failures.push(`could not sync ${account.label} (${errorMessage(error)})`);
        }
      }),
    );
    const result = await Promise.race([work.then(() => "done" as const), late]).finally(() =>
      clearTimeout(timer),
    );
    if (result === "late")
      return {
        source: "accounts",
        status: "failed",
        detail: "accounts did not answer in time; using what they showed last",
      };
    return failures.length > 0
      ? { source: "accounts", status: "failed", detail: `${failures.join("; ")}; using what it showed last` }
      : { source: "accounts", status: "refreshed" };
  };
}
