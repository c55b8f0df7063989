/** At most `size` holders at once; the rest wait in arrival order. */
export interface Semaphore {
  /** Resolves with this holder's (idempotent) release once a slot is free. */
  acquire(): Promise<() => void>;
}

export function createSemaphore(size: number): Semaphore {
  let free = Math.max(1, size);
  const waiting: Array<() => void> = [];
  const handOver = () => {
    const next = waiting.shift();
    if (next) next();
    else free += 1;
  };
  const releaser = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      handOver();
    };
  };
  return {
    acquire() {
      if (free > 0) {
        free -= 1;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve) => waiting.push(() => resolve(releaser())));
    },
  };
}
