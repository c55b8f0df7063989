/**
 * Where the core gets ids it makes up itself (the call ids of runner-made tool calls). Injected like the
 * clock, so tests get stable ids and the composition root can make them unique across processes.
 */
export type Ids = () => string;

/** `call_1`, `call_2`, …: unique within a process, which is all a run or a thread needs. */
export function sequentialIds(prefix = "call"): Ids {
  let next = 0;
  return () => `${prefix}_${++next}`;
}
