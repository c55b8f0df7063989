import { join } from "node:path";

/**
 * Real iCalendar exports and feeds from public test corpora, copied into the repository with their
 * provenance and licences (`test/fixtures/real-world/SOURCES.md`), so a clone anywhere runs every test.
 */
export const REAL_WORLD_FIXTURES = join(import.meta.dirname, "../fixtures/real-world");
