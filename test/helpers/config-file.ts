/**
 * BRIEFBOT_CONFIG files for CLI tests. Subscription fetches refuse 127.0.0.1 unless the operator allows
 * it, so a test that serves calendars or feeds from the local test servers says so in its config, the
 * same way an operator would.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

export function writeConfigFile(yaml: string): string {
  const folder = mkdtempSync(join(tmpdir(), "briefbot-config-"));
  // Called while a suite is collected; the CLI may read the file until the suite's last test.
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const path = join(folder, "briefbot.yaml");
  writeFileSync(path, yaml);
  return path;
}

/** Allows exactly the loopback address the test servers listen on. */
export function loopbackSourcesConfig(): string {
  return writeConfigFile('sources:\n  allow_hosts: ["127.0.0.1"]\n');
}
