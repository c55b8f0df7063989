import { join } from "node:path";

/**
 * The team's real-world fixtures live in `shared/` beside this repository (as in CI, which lays a copy of
 * `shared/` next to the clone it tests).
 */
export const REAL_WORLD_FIXTURES = join(import.meta.dirname, "../../../shared/fixtures/real-world");
