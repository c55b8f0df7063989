/**
 * Subscription addresses are secrets: a Google, Outlook or iCloud "secret address" lets anyone who has it
 * read the calendar, and private feeds carry tokens too. Wherever one is shown — lists, logs, receipts —
 * only its scheme, host and the first characters of its path remain. Pure, so the CLI, the sync loops and
 * the core's receipts all use this one function.
 */

/** How much of the path stays visible, counting its leading "/": enough to tell addresses apart, too little to use one. */
const VISIBLE_PATH_CHARACTERS = 8;

/**
 * `https://calendar.google.com/calendar/ical/…/basic.ics` → `https://calendar.google.com/calenda…`. User
 * names, passwords, query strings and fragments are dropped. Anything that is not an http(s) or webcal
 * address (a local file path) is returned as it is.
 */
export function redactAddress(address: string): string {
  const trimmed = address.trim();
  if (!/^(https?|webcals?):\/\//i.test(trimmed)) return address;
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    // Unparseable but address-shaped: keep the scheme only.
    return `${trimmed.slice(0, trimmed.indexOf("://") + 3)}…`;
  }
  const path = parsed.pathname;
  const hidden = path.length > VISIBLE_PATH_CHARACTERS || parsed.search !== "" || parsed.hash !== "";
  return `${parsed.protocol}//${parsed.host}${path.slice(0, VISIBLE_PATH_CHARACTERS)}${hidden ? "…" : ""}`;
}

/** Every address in a text (error messages quote the address they failed on), redacted. */
export function redactAddressesIn(text: string): string {
  return text.replace(/\b(?:https?|webcals?):\/\/[^\s"'<>()]+/gi, (address) => {
    // A sentence's closing punctuation is not part of the address.
    const trailing = /[.,;:!?]+$/.exec(address)?.[0] ?? "";
    return redactAddress(address.slice(0, address.length - trailing.length)) + trailing;
  });
}
