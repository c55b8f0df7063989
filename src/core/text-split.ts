/**
 * The one text splitter for platforms that cap a message's length. Each platform passes its own rules: how
 * it measures text (Telegram counts UTF-16 code units) and where a hard cut is safe (Slack must not cut an
 * `&amp;` entity in half); the splitting itself is the same.
 */

export interface SplitRules {
  /** The largest measure one piece may have. */
  limit: number;
  /** How the platform measures text. Default: UTF-16 code units (`string.length`). */
  measure?: (text: string) => number;
  /** Break points, most preferred first; a break drops its separator. Default: a blank line, a line break, a space. */
  breaks?: readonly string[];
  /**
   * A break is taken only at this fraction of the piece's room or later (0 to 1), so a break near the start
   * does not leave a tiny piece. Default 0: anywhere.
   */
  minBreakFraction?: number;
  /** Whether a piece may end before `index` when no break fits. Default: never inside a surrogate pair. */
  canCutAt?: (text: string, index: number) => boolean;
}

const DEFAULT_BREAKS = ["\n\n", "\n", " "] as const;

/** Splits `text` into pieces that each measure at most `rules.limit`, losing nothing but separators at breaks. */
export function splitText(text: string, rules: SplitRules): string[] {
  if (rules.limit < 2) throw new Error(`split limit must be at least 2, got ${rules.limit}`);
  const measure = rules.measure ?? codeUnits;
  const breaks = rules.breaks ?? DEFAULT_BREAKS;
  const canCutAt = rules.canCutAt ?? outsideSurrogatePair;
  const pieces: string[] = [];
  let rest = text;
  while (measure(rest) > rules.limit) {
    const room = longestFit(rest, rules.limit, measure);
    const earliest = Math.floor(room * (rules.minBreakFraction ?? 0));
    let cut = -1;
    let skip = 0;
    for (const separator of breaks) {
      const at = rest.lastIndexOf(separator, room);
      if (at > 0 && at >= earliest) {
        cut = at;
        skip = separator.length;
        break;
      }
    }
    if (cut < 0) {
      cut = room;
      while (cut > 1 && !canCutAt(rest, cut)) cut -= 1;
      // Nowhere safe to cut: a piece that fits beats a loop that never ends.
      if (!canCutAt(rest, cut)) cut = room;
    }
    const piece = rest.slice(0, cut);
    if (piece !== "") pieces.push(piece);
    rest = rest.slice(cut + skip);
  }
  if (rest !== "") pieces.push(rest);
  return pieces;
}

/** A cut before `index` keeps every surrogate pair (an emoji, say) whole. */
export function outsideSurrogatePair(text: string, index: number): boolean {
  const before = text.charCodeAt(index - 1);
  return !(before >= 0xd800 && before <= 0xdbff);
}

function codeUnits(text: string): number {
  return text.length;
}

/** The longest prefix (at least one code unit) whose measure is within `limit`, as its length. */
function longestFit(text: string, limit: number, measure: (text: string) => number): number {
  if (measure === codeUnits) return Math.max(1, Math.min(limit, text.length));
  let low = 1;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (measure(text.slice(0, middle)) <= limit) low = middle;
    else high = middle - 1;
  }
  return low;
}
