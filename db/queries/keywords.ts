/** How feed items are matched against a user's interests in the item query. */

/**
 * Whether `keyword` occurs in `text` as a word start ("election" matches "elections", "ai" does not
 * match "said"). Keywords of three letters or fewer must match a whole word.
 */
export function matchesKeyword(text: string, keyword: string): boolean {
  return keywordPattern(keyword).test(text);
}

const patternCache = new Map<string, RegExp>();

function keywordPattern(keyword: string): RegExp {
  let pattern = patternCache.get(keyword);
  if (!pattern) {
    const escaped = keyword.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, "\\s+");
    const end = keyword.length <= 3 ? "(?![\\p{L}\\p{N}])" : "";
    pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}${end}`, "iu");
    if (patternCache.size > 1000) patternCache.clear();
    patternCache.set(keyword, pattern);
  }
  return pattern;
}
