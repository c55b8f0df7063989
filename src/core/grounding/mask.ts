/** Character ranges of a sentence already claimed, so "10:30" is not also the numbers 10 and 30. */
export class Mask {
  private readonly taken: [number, number][] = [];

  isFree(start: number, end: number): boolean {
    return !this.taken.some(([from, to]) => from < end && start < to);
  }

  /** Claims the range if it is free; false when some of it was already claimed. */
  take(start: number, end: number): boolean {
    if (!this.isFree(start, end)) return false;
    this.taken.push([start, end]);
    return true;
  }
}
