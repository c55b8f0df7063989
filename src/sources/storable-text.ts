/**
 * Text from calendars and feeds is written by strangers; the cleaning itself is the core's (model replies
 * need the same), and only telling binary data from text is the sources' own concern.
 */
export { needsCleaning, storableSnippet, storableText } from "../core/storable-text.ts";

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
