#!/usr/bin/env node
// Runs the compiled CLI from dist/, compiling it first when it is missing or older than the sources.
import { ensureBuilt } from "./build.js";

await ensureBuilt((line) => process.stderr.write(`${line}\n`));
await import("../dist/src/cli/main.js");
