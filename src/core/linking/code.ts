/**
 * The shape of a one-time link code: eight symbols of Crockford's base32, shown as `K7QX-29MB`. People copy
 * them from a terminal onto a phone, so case, spaces and dashes don't matter and the look-alikes O, I and L
 * read as 0, 1 and 1 (the alphabet has no O, I, L or U). `normaliseCode` is the one form that is hashed and
 * compared.
 */

/** 32 symbols, so each random byte maps to one without bias (256 is a multiple of 32). */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const LENGTH = 8;

/** Random bytes, e.g. `crypto.getRandomValues`; injected so the core reaches nothing outside itself. */
export type RandomBytes = (count: number) => Uint8Array;

export const webRandomBytes: RandomBytes = (count) =>
  globalThis.crypto.getRandomValues(new Uint8Array(count));

/** A new code as people see it, `XXXX-XXXX`. */
export function newCode(random: RandomBytes): string {
  const symbols = Array.from(random(LENGTH), (byte) => ALPHABET[byte % ALPHABET.length]).join("");
  return `${symbols.slice(0, 4)}-${symbols.slice(4)}`;
}

/** The canonical form of what someone typed, or undefined when it cannot be a code at all. */
export function normaliseCode(typed: string): string | undefined {
  const compact = typed
    .toUpperCase()
    .replace(/[\s-]+/g, "")
    .replace(/O/g, "0")
    .replace(/[IL]/g, "1");
  if (compact.length !== LENGTH) return undefined;
  for (const symbol of compact) if (!ALPHABET.includes(symbol)) return undefined;
  return compact;
}
