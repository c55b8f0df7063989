/** One benchmark's printed result: a title and the lines of figures under it. */
export interface BenchSection {
  title: string;
  lines: string[];
}
