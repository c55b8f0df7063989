/**
 * Text from calendars and feeds is written by strangers. PostgreSQL refuses NUL in `text` and `jsonb`,
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

/**
 * Whether the text is really binary data: neither iCalendar nor XML nor JSON may contain raw control
 * characters other than tab and line breaks, so a real calendar or feed has none or a stray few, while
 * an image, an archive or UTF-16 read as UTF-8 is full of them. (U+FFFD is not counted: a feed in a
 * mislabelled charset is full of those and still worth reading.)
 */
export function looksBinary(text: string): boolean {
  const sample = text.length > 65_536 ? text.slice(0, 65_536) : text;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  const controls = sample.match(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g)?.length ?? 0;
  return controls >= 8 && controls / Math.max(1, sample.length) > 0.01;
}
