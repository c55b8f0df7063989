/**
 * What reaches a bot — a polled or posted Telegram update, a Slack event or button press — kept in the
 * database (`InboundUpdates`) from before the platform is told it arrived until it is handled, so a process
 * killed mid-answer loses nothing and nothing is handled twice. Shared by Telegram's poller and webhook and
 * by Slack's intake, which differ only in how they receive and acknowledge.
 *
 *   const intake = createDurableIntake({ ...durable, label: "telegram", handle: (update) => … });
 *   const fresh = await intake.accept([{ updateId: "12", payload: update }]);   // before the platform's ack
 *   for (const id of fresh) void intake.handle(id, update);                    // handled, then marked so
 *   intake.startRecovering();                                                 // at start, and every 15 s
 *
 * An id `accept` returns is this process's to handle; one already stored is someone's (handled, being
 * handled, or left to reclaim) and must only be acknowledged. What a dead process left unhandled — its
 * lease lapsed, or on the embedded database any earlier owner's — is taken over in one statement (of two
 * processes recovering the same orphan exactly one gets it) and handled as if just received.
 *
 * The handler tells its `UpdateProgress` what the platform accepted, as soon as it did: a placeholder
 * ("thinking…", a streamed message), then the answer's messages. A taker of an update whose answer is out
 * only marks it handled (what was still unsent of a many-piece answer is lost rather than doubled); one with
 * only a placeholder is handled again, and its answer goes into that placeholder (`progress.placeholder`).
 */
import {
  type Clock,
  errorMessage,
  type InboundProgress,
  type InboundUpdates,
  type Logger,
} from "../src/core/index.ts";

/** How often a process looks for updates a dead process left unhandled (also at every start). */
export const RECOVER_EVERY_MS = 15_000;
/** A handled update is remembered this long: Telegram keeps an update it was not told arrived for a day. */
export const HANDLED_KEEP_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** Where received updates are kept until handled, and who this process is. */
export interface DurableUpdates {
  updates: InboundUpdates;
  /** The bot's updates among others': `telegram:<token fingerprint>`, `slack:<team id>`. */
  source: string;
  /** This process, as its lease names it. */
  owner: string;
  /** The embedded database: one process owns it, so whatever an earlier owner left is orphaned. */
  everyOtherOwner: boolean;
  clock: Clock;
  recoverEveryMs?: number;
}

export interface DurableIntakeOptions extends DurableUpdates {
  /** Names the platform in log lines. */
  label: string;
  logger: Logger;
  /** Handles one update (fresh or taken over); whatever it throws goes to `onFailure`. */
  handle: (payload: unknown, updateId: string, progress: UpdateProgress) => Promise<void>;
  /** Whether a taken-over payload is still a whole update; one that is not is only marked handled. */
  isUpdate: (payload: unknown, updateId: string) => boolean;
  onFailure: (error: unknown) => Promise<void> | void;
}

export interface DurableIntake {
  /** Stores updates just received, claimed by this process; the ids new here, which this process handles. */
  accept(updates: readonly { updateId: string; payload: unknown }[]): Promise<string[]>;
  /**
   * Handles an accepted update and marks it handled — whatever the handler's outcome. Never rejects. `run`
   * handles it instead of the options' `handle` (Slack's fresh event carries its live ack).
   */
  handle(
    updateId: string,
    payload: unknown,
    run?: (progress: UpdateProgress) => Promise<void>,
  ): Promise<void>;
  /** Takes over what dead processes left unhandled and hands it on, oldest first; forgets old handled ones. */
  recover(): Promise<void>;
  /** Recovers now and then every `recoverEveryMs` until `stopRecovering`. */
  startRecovering(): Promise<void>;
  /** Stops the check and waits for a recovery under way. */
  stopRecovering(): Promise<void>;
  /**
   * Resolves when no update handed on here is being handled, after one more try at recording the handled
   * ones the database did not take.
   */
  settled(): Promise<void>;
}

/**
 * What handling one update has shown the person so far, written to the database (claimer-checked) before
 * the handler goes on, so the window for a second answer is only between the platform accepting a post and
 * this write. A write that fails is logged and the answer goes on: at worst a taker answers again.
 */
export interface UpdateProgress {
  /** A placeholder a stopped process left showing: the answer replaces it instead of posting a new one. */
  readonly placeholder: string | undefined;
  /** A placeholder the answer will replace is showing now. */
  showing(placeholder: string): Promise<void>;
  /** The platform accepted these messages of the answer: a taker will not answer again. */
  posted(messageIds: readonly string[]): Promise<void>;
}

/** For an update kept nowhere (no durable intake): nothing to record, nothing handed over. */
export const UNTRACKED: UpdateProgress = {
  placeholder: undefined,
  showing: async () => {},
  posted: async () => {},
};

export function createDurableIntake(options: DurableIntakeOptions): DurableIntake {
  const { updates, source, owner, clock, logger, label } = options;
  const handling = new Set<Promise<void>>();
  /** Handled, but the database did not take `markHandled`: tried again on each recovery. */
  const unrecorded = new Set<string>();
  let recoverTimer: NodeJS.Timeout | undefined;
  let recovering: Promise<void> | undefined;
  let prunedAt = 0;

  async function record(updateId: string): Promise<void> {
    try {
      const marked = await updates.markHandled(source, updateId, owner, clock.now());
      if (!marked)
        logger.warn({ updateId }, `${label}: an update handled here had been taken over by another process`);
      unrecorded.delete(updateId);
    } catch (error) {
      unrecorded.add(updateId);
      logger.warn(
        { updateId, error: errorMessage(error) },
        `${label}: could not record an update as handled`,
      );
    }
  }

  function progressOf(updateId: string, earlier: InboundProgress | null): UpdateProgress {
    let current: InboundProgress = earlier ?? { posted: [] };
    let writing = Promise.resolve();
    const write = (next: InboundProgress) => {
      current = next;
      writing = writing.then(async () => {
        try {
          if (!(await updates.recordProgress(source, updateId, owner, next)))
            logger.warn(
              { updateId },
              `${label}: an update being answered here had been taken over by another process`,
            );
        } catch (error) {
          logger.warn(
            { updateId, error: errorMessage(error) },
            `${label}: could not record what was posted for an update`,
          );
        }
      });
      return writing;
    };
    return {
      placeholder: earlier?.placeholder,
      showing: (placeholder) => write({ ...current, placeholder }),
      posted: (messageIds) => write({ ...current, posted: [...new Set([...current.posted, ...messageIds])] }),
    };
  }

  function handle(
    updateId: string,
    payload: unknown,
    run?: (progress: UpdateProgress) => Promise<void>,
    earlier: InboundProgress | null = null,
  ): Promise<void> {
    const work = (async () => {
      const progress = progressOf(updateId, earlier);
      try {
        await (run ? run(progress) : options.handle(payload, updateId, progress));
      } catch (error) {
        await options.onFailure(error);
      } finally {
        await record(updateId);
      }
    })();
    handling.add(work);
    const done = () => handling.delete(work);
    work.then(done, done);
    return work;
  }

  function recover(): Promise<void> {
    if (recovering) return recovering;
    recovering = (async () => {
      for (const updateId of [...unrecorded]) await record(updateId);
      const now = clock.now();
      const orphans = await updates.reclaimOrphans(source, {
        owner,
        at: now,
        everyOtherOwner: options.everyOtherOwner,
      });
      for (const orphan of orphans) {
        if (!options.isUpdate(orphan.payload, orphan.updateId)) {
          await record(orphan.updateId);
          continue;
        }
        if ((orphan.progress?.posted.length ?? 0) > 0) {
          logger.info(
            { updateId: orphan.updateId },
            `${label}: an update taken over was answered before the process stopped; marked handled, not answered again`,
          );
          await record(orphan.updateId);
          continue;
        }
        logger.info(
          { updateId: orphan.updateId, placeholder: orphan.progress?.placeholder },
          `${label}: handling an update a stopped process left unhandled`,
        );
        void handle(orphan.updateId, orphan.payload, undefined, orphan.progress);
      }
      if (now.getTime() - prunedAt >= PRUNE_EVERY_MS) {
        await updates.prune(source, new Date(now.getTime() - HANDLED_KEEP_MS));
        prunedAt = now.getTime();
      }
    })()
      .catch((error: unknown) =>
        logger.warn({ error: errorMessage(error) }, `${label}: could not take over unhandled updates`),
      )
      .finally(() => {
        recovering = undefined;
      });
    return recovering;
  }

  return {
    accept: (received) => updates.store(source, received, owner, clock.now()),
    handle: (updateId, payload, run) => handle(updateId, payload, run),
    recover,
    async startRecovering() {
      clearInterval(recoverTimer);
      recoverTimer = setInterval(() => void recover(), options.recoverEveryMs ?? RECOVER_EVERY_MS);
      recoverTimer.unref();
      await recover();
    },
    async stopRecovering() {
      clearInterval(recoverTimer);
      recoverTimer = undefined;
      await recovering;
    },
    async settled() {
      while (handling.size > 0) await Promise.allSettled([...handling]);
      // A stopping process's last chance: unrecorded, the next holder would answer these a second time.
      for (const updateId of [...unrecorded]) await record(updateId);
    },
  };
}
