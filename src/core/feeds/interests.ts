/**
 * Interests are keywords a user writes in their free-text profile. Two forms are read:
 *
 *   interests: climate, local politics, rust
 *
 * or a heading followed by a list (ends at a blank line or the next heading):
 *
 *   ## Interests
 *   - climate
 *   - local politics
 *
 * "Topics" works as a synonym for "Interests". Items are split on commas and semicolons, lower-cased,
 * de-duplicated; at most 30 are kept.
 */

const MAX_INTERESTS = 30;
const MAX_INTEREST_LENGTH = 60;

const INLINE = /^\s*(?:[-*#>]+\s*)?\**(?:interests|topics)\**\s*[:=–-]\s*(.+)$/i;
const HEADING = /^\s*(?:#+\s*)?\**(?:my\s+)?(?:interests|topics)\**\s*:?\s*$/i;
const NEXT_SECTION = /^\s*(#+\s|[A-Za-z][\w ]{0,30}:\s*$)/;

export function interestsFromProfile(profile: string): string[] {
  const found: string[] = [];
  const lines = profile.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const inline = line.match(INLINE);
    if (inline?.[1]) {
      found.push(...splitKeywords(inline[1]));
      continue;
    }
    if (!HEADING.test(line)) continue;
    for (index++; index < lines.length; index++) {
      const entry = lines[index] ?? "";
      if (!entry.trim() || NEXT_SECTION.test(entry)) {
        index--;
        break;
      }
      found.push(...splitKeywords(entry.replace(/^\s*(?:[-*•+]|\d+[.)])\s*/, "")));
    }
  }
  return [...new Set(found)].slice(0, MAX_INTERESTS);
}

function splitKeywords(text: string): string[] {
  return text
    .split(/[,;]/)
    .map((part) => part.replace(/[*_`]/g, "").replace(/\s+/g, " ").trim().replace(/\.$/, "").toLowerCase())
    .filter((part) => part.length > 0 && part.length <= MAX_INTEREST_LENGTH);
}
