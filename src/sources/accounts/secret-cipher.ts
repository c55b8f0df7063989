/**
 * Account passwords and tokens at rest: AES-256-GCM with a key from the environment (`BRIEFBOT_SECRET_KEY`,
 * or the file `BRIEFBOT_SECRET_KEY_FILE` names), each secret with a fresh 96-bit nonce. The stored text is
 * base64 of nonce | ciphertext | tag, beside the id of the key that sealed it; the id is a short hash of
 * the key, so a rotation can tell old from new without keeping the key anywhere but the environment.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { SealedSecret, SecretCipher } from "../../core/accounts/ports.ts";
import { BriefbotError } from "../../core/errors.ts";

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** The key is missing, malformed, or not the one a secret was sealed with. */
export class SecretKeyError extends BriefbotError<"secret_key"> {
  constructor(message: string) {
    super("secret_key", message);
  }
}

/** The one line account commands answer when no key is configured. */
export const NO_SECRET_KEY_TEXT =
  "account commands need BRIEFBOT_SECRET_KEY (or BRIEFBOT_SECRET_KEY_FILE): 32 bytes as base64 or hex, e.g. `openssl rand -base64 32`";

/** 32 bytes from 64 hex digits or base64 (standard or URL-safe); a clear error for anything else. */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (bytes.length === KEY_BYTES) return bytes;
    throw new SecretKeyError(
      `the secret key is ${bytes.length} bytes; it must be ${KEY_BYTES} (base64 or hex)`,
    );
  }
  throw new SecretKeyError(`the secret key must be ${KEY_BYTES} bytes as base64 or 64 hex digits`);
}

/** A short, stable name for a key that tells nothing about it. */
export function keyIdOf(key: Buffer): string {
  return createHash("sha256").update("briefbot secret key id\0").update(key).digest("hex").slice(0, 12);
}

export function createSecretCipher(keyText: string): SecretCipher {
  const key = parseSecretKey(keyText);
  const keyId = keyIdOf(key);
  // The key id is bound into the tag: a ciphertext moved under another id does not open.
  const aad = Buffer.from(keyId, "utf8");
  return {
    keyId,
    seal(plain: string): SealedSecret {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      cipher.setAAD(aad);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return { keyId, sealed: Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64") };
    },
    open(secret: SealedSecret): string {
      if (secret.keyId !== keyId) {
        throw new SecretKeyError(
          `this secret was sealed with key ${secret.keyId}, not the configured key ${keyId}: set the old BRIEFBOT_SECRET_KEY, or rotate with \`briefbot account rotate-key\``,
        );
      }
      const bytes = Buffer.from(secret.sealed, "base64");
      if (bytes.length < NONCE_BYTES + TAG_BYTES)
        throw new SecretKeyError("a stored secret is damaged (too short)");
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, NONCE_BYTES));
      decipher.setAAD(aad);
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      try {
        return Buffer.concat([
          decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]).toString("utf8");
      } catch {
        throw new SecretKeyError(
          `a stored secret does not open with key ${keyId}: it was changed, or sealed with another key under the same id`,
        );
      }
    },
  };
}
