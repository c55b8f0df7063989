/**
 * Text from calendars, feeds and model replies is written by strangers. PostgreSQL refuses NUL in `text` and `jsonb`,
 * and an unpaired UTF-16 surrogate becomes invalid JSON in `jsonb`; either one used to fail the whole
 * sync's transaction. Other C0 control characters are legal but have no business in a title and
 * confuse the chat platforms, so they go too. Tabs and line breaks stay.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The text with NUL and other control characters removed and unpaired surrogates replaced by U+FFFD. */
export function storableText(text: string): string {
  return text.replace(CONTROL_CHARACTERS, "").replace(LONE_SURROGATE, "\uFFFD");
}

/** Whether `storableText` would change anything (so a caller can say that it did). */
export function needsCleaning(text: string): boolean {
  return storableText(text) !== text;
}

/** `storableText`, cut to at most `maxLength` characters without splitting a surrogate pair. */
export function storableSnippet(text: string, maxLength: number): string {
  const clean = storableText(text);
  if (clean.length <= maxLength) return clean;
  const cut = clean.slice(0, maxLength);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** What `storableJson` puts where a value was nested deeper than allowed. */
export const TOO_DEEP = "[nested too deep]";

/**
 * A JSON value as it may be stored in `jsonb`: every string and key through `storableText`, and anything
 * nested deeper than `maxDepth` replaced by {@link TOO_DEEP}. Iterative, so a hostile value 100,000 levels
 * deep cannot overflow the stack; values JSON cannot hold (functions, undefined) are dropped as JSON would.
 */
export function storableJson(value: unknown, maxDepth = 32): unknown {
  const root: { value: unknown } = { value: undefined };
  const stack: Array<{ source: unknown; assign: (cleaned: unknown) => void; depth: number }> = [
    { source: value, assign: (cleaned) => (root.value = cleaned), depth: 0 },
  ];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { source, assign, depth } = item;
    if (typeof source === "string") assign(storableText(source));
    else if (typeof source === "number") assign(Number.isFinite(source) ? source : null);
    else if (typeof source === "boolean" || source === null) assign(source);
    else if (typeof source === "bigint") assign(source.toString());
    else if (typeof source !== "object") assign(undefined);
    else if (source instanceof Date) assign(Number.isNaN(source.getTime()) ? null : source.toISOString());
    else {
      if (depth >= maxDepth) {
        assign(TOO_DEEP);
        continue;
      }
      if (Array.isArray(source)) {
        const target: unknown[] = new Array(source.length).fill(null);
        assign(target);
        for (const [index, element] of source.entries()) {
          stack.push({
            source: element,
            assign: (cleaned) => {
              target[index] = cleaned ?? null;
            },
            depth: depth + 1,
          });
        }
      } else {
        const target: Record<string, unknown> = {};
        assign(target);
        for (const [key, element] of Object.entries(source)) {
          const cleanKey = storableText(key);
          // Claimed now, filled later: the stack is last-in first-out, and keys must keep their order.
          target[cleanKey] = null;
          stack.push({
            source: element,
            assign: (cleaned) => {
              if (cleaned === undefined) delete target[cleanKey];
              else target[cleanKey] = cleaned;
            },
            depth: depth + 1,
          });
        }
      }
    }
  }
  return root.value;
}
