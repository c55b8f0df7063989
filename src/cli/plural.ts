/** "1 request", "2 requests": a count with its noun, for the CLI's summary lines. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
