/**
 * Runs tasks one at a time per chat and concurrently across chats, so one user's long /brief does not hold
 * up everyone else while each chat still sees its messages handled in order.
 */
export interface ChatQueues {
  run(key: string, task: () => Promise<void>): Promise<void>;
  /** Resolves when every queued task has finished. */
  idle(): Promise<void>;
}

export function createChatQueues(): ChatQueues {
  const tails = new Map<string, Promise<void>>();
  return {
    run(key, task) {
      const previous = tails.get(key) ?? Promise.resolve();
      const next = previous.then(() => task());
      const tail = next.catch(() => undefined);
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return next;
    },
    async idle() {
      while (tails.size > 0) await Promise.all([...tails.values()]);
    },
  };
}
