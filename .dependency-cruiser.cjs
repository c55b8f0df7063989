// The layering of issue 12, as rules that fail `npm run check` (run alone: `npm run boundaries`).
// Every rule is `forbidden` at severity error and there are no exceptions: a rule that needs one is a rule
// to change here, in review, not to silence in a comment elsewhere.
// test/architecture/boundaries.test.ts plants a violation of each rule in a copy of the tree and expects
// this configuration to reject it, so a rule that stops matching (a typo, a resolver change) fails a test.

/** Paths the core may reach besides itself: zod and luxon, with luxon's types from DefinitelyTyped. */
const corePureLibraries = "(^|/)node_modules/(zod|luxon|@types/luxon)/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "core-imports-only-core-zod-luxon",
      comment:
        "The core is the platform-neutral heart: it declares ports and the edges implement them. Any other " +
        "import (a node: builtin, a driver, grammY, the database, another src folder) would tie it to a " +
        "runtime or a platform and make it untestable without one. zod and luxon are small and pure.",
      severity: "error",
      from: { path: "^src/core/" },
      to: { pathNot: ["^src/core/", corePureLibraries] },
    },
    {
      name: "db-imports-only-the-core-vocabulary",
      comment:
        "db/ implements the core's ports and maps its rows to the core's domain types, so those types and " +
        "the errors it raises are written once, in the core (issue 25). It may read the core's vocabulary " +
        "— domain.ts and errors.ts, which import nothing — and nothing else above it: an arrow into the " +
        "core's logic, src/ or bots/ ties the layers into one knot again (issue 12).",
      severity: "error",
      from: { path: "^db/" },
      to: { path: "^(src|bots)/", pathNot: "^src/core/(domain|errors)\\.ts$" },
    },
    {
      name: "bots-use-only-core-public-surface",
      comment:
        "Adapters talk to the core through its public surface only, so the core can reorganise its inside " +
        "without touching Telegram or Slack, and adapters never reach the config, logger, delivery or " +
        "other edge services behind the core's back.",
      severity: "error",
      from: { path: "^bots/" },
      to: { path: "^src/", pathNot: "^src/core/index\\.ts$" },
    },
    {
      name: "bots-stay-out-of-db",
      comment:
        "Adapters keep their state (identity, threads, message links, event dedupe) through the core's " +
        "PlatformState port, never by querying the database themselves.",
      severity: "error",
      from: { path: "^bots/" },
      to: { path: "^db/" },
    },
    {
      name: "bots-adapters-stay-apart",
      comment:
        "Telegram and Slack are independent adapters: either can be removed or rewritten without touching " +
        "the other. What they share belongs in the core.",
      severity: "error",
      from: { path: "^bots/(telegram|slack)/" },
      to: { path: "^bots/(telegram|slack)/", pathNot: "^bots/$1/" },
    },
    {
      name: "telegram-adapter-uses-no-slack-library",
      comment: "Same reason, one level down: the Telegram adapter never depends on Slack's libraries.",
      severity: "error",
      from: { path: "^bots/telegram/" },
      to: { path: "(^|/)node_modules/@slack/" },
    },
    {
      name: "slack-adapter-uses-no-telegram-library",
      comment: "The Slack adapter never depends on grammY or its plugins.",
      severity: "error",
      from: { path: "^bots/slack/" },
      to: { path: "(^|/)node_modules/(grammy|@grammyjs/[^/]+)/" },
    },
    {
      name: "nothing-imports-the-cli",
      comment:
        "The CLI is the outermost layer that wires everything; anything importing it (a type, an error " +
        "class) drags the whole composition in and turns the layering upside down. bin/ starts it.",
      severity: "error",
      from: { pathNot: "^(src/cli/|bin/)" },
      to: { path: "^src/cli/" },
    },
    {
      name: "delivery-never-imports-scheduler",
      comment:
        "Delivery is one-way: the run carries its delivery window from the moment it is claimed, so the " +
        "outbox has no reason to ask the scheduler anything.",
      severity: "error",
      from: { path: "^src/delivery/" },
      to: { path: "^src/scheduler/" },
    },
    {
      name: "scheduler-delivery-server-use-ports-not-the-database",
      comment:
        "The scheduler, the outbox and the HTTP server change runs and read counts only through ports the " +
        "composition root hands them (RunLifecycle, RunQueue, MetricsReadings…): a query or a table imported " +
        "here would be a second writer of an aggregate the lifecycle owns (issue 25).",
      severity: "error",
      from: { path: "^src/(scheduler|delivery|server)/" },
      to: { path: "^db/" },
    },
    {
      name: "core-has-no-cycles",
      comment:
        "A cycle inside the core means two modules cannot be understood or tested apart; the core stays a " +
        "tree of small modules. Type-only imports count: they tie the modules' designs together all the " +
        "same. (Cycles out of the core are already forbidden by the first rule.)",
      severity: "error",
      from: { path: "^src/core/" },
      to: { circular: true, viaOnly: { path: "^src/core/" } },
    },
    {
      name: "every-import-resolves",
      comment:
        "An import the cruiser cannot resolve is an import no rule above can judge. tsc catches most of " +
        "them first, but not in bin/'s JavaScript, which it does not check. bin/briefbot.js imports the " +
        "compiled dist/, which exists only after a build and is not ours to judge.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, pathNot: "^(\\.\\./)+dist/" },
    },
  ],
  options: {
    // node_modules are targets of rules, never cruised themselves; the migrations are SQL; dist/ is build output.
    doNotFollow: { path: "(^|/)node_modules/" },
    exclude: { path: "^db/migrations/|^dist/" },
    // Type-only imports are dependencies too: `import type { Update } from "grammy/types"` in the core
    // couples it to grammY as surely as a value import does.
    tsPreCompilationDeps: true,
    // `process.getBuiltinModule("node:fs")` reaches a builtin without an import statement.
    detectProcessBuiltinModuleCalls: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      // Resolve package subpaths (`grammy/types`, `drizzle-orm/postgres-js`) through their exports maps, so
      // they land under node_modules/<package>/ where the rules above can match them.
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "types", "default"],
      mainFields: ["module", "main", "types", "typings"],
      extensions: [".ts", ".d.ts", ".js", ".mjs", ".cjs", ".mts", ".cts", ".json"],
    },
  },
};
