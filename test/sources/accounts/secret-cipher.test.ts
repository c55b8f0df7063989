import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/config.ts";
import { createSecretCipher, parseSecretKey } from "../../../src/sources/accounts/secret-cipher.ts";

const keyA = randomBytes(32).toString("base64");
const keyB = randomBytes(32).toString("hex");

describe("secret cipher", () => {
  it("seals and opens a secret; the stored text is not the secret and differs each time", () => {
    const cipher = createSecretCipher(keyA);
    const one = cipher.seal("app-password-123");
    const two = cipher.seal("app-password-123");
    expect(one.sealed).not.toContain("app-password");
    expect(one.sealed).not.toBe(two.sealed);
    expect(one.keyId).toBe(cipher.keyId);
    expect(cipher.open(one)).toBe("app-password-123");
  });

  it("reads keys as base64 or hex, naming the same key by the same id", () => {
    const bytes = randomBytes(32);
    expect(createSecretCipher(bytes.toString("hex")).keyId).toBe(
      createSecretCipher(bytes.toString("base64")).keyId,
    );
    expect(createSecretCipher(keyB).keyId).not.toBe(createSecretCipher(keyA).keyId);
  });

  it("refuses a key that is not 32 bytes, with a secret_key error", () => {
    expect(() => parseSecretKey(randomBytes(16).toString("base64"))).toThrow(
      expect.objectContaining({
        code: "secret_key",
        message: expect.stringMatching(/16 bytes; it must be 32/),
      }),
    );
    expect(() => parseSecretKey("not a key!")).toThrow(expect.objectContaining({ code: "secret_key" }));
  });

  it("refuses a secret sealed with another key, naming both key ids", () => {
    const sealed = createSecretCipher(keyA).seal("token");
    const other = createSecretCipher(keyB);
    expect(() => other.open(sealed)).toThrow(
      expect.objectContaining({ code: "secret_key", message: expect.stringContaining(sealed.keyId) }),
    );
    // Relabelled as the other key's: the tag binds the key id, so it still does not open.
    expect(() => other.open({ ...sealed, keyId: other.keyId })).toThrow(
      expect.objectContaining({ code: "secret_key", message: expect.stringMatching(/does not open/) }),
    );
  });

  it("refuses a tampered secret", () => {
    const cipher = createSecretCipher(keyA);
    const sealed = cipher.seal("token");
    const bytes = Buffer.from(sealed.sealed, "base64");
    bytes[14] = (bytes[14] ?? 0) ^ 1;
    expect(() => cipher.open({ ...sealed, sealed: bytes.toString("base64") })).toThrow(
      expect.objectContaining({ code: "secret_key" }),
    );
    expect(() => cipher.open({ ...sealed, sealed: "AAAA" })).toThrow(/damaged/);
  });
});

describe("BRIEFBOT_SECRET_KEY in the configuration", () => {
  const noFiles = (path: string): string => {
    throw Object.assign(new Error(`no ${path}`), { code: "ENOENT" });
  };

  it("is read from the variable or from the file it names", () => {
    expect(loadConfig({ BRIEFBOT_SECRET_KEY: keyA }, noFiles).secretKey).toBe(keyA);
    const fromFile = loadConfig({ BRIEFBOT_SECRET_KEY_FILE: "/run/secrets/key" }, (path) =>
      path === "/run/secrets/key" ? `${keyB}\n` : noFiles(path),
    );
    expect(fromFile.secretKey).toBe(keyB);
    expect(loadConfig({}, noFiles).secretKey).toBeUndefined();
  });

  it("refuses a malformed key at start-up, in one line", () => {
    expect(() => loadConfig({ BRIEFBOT_SECRET_KEY: "short" }, noFiles)).toThrow(
      /BRIEFBOT_SECRET_KEY: the secret key is \d+ bytes; it must be 32/,
    );
  });
});
