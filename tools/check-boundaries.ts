// Runs the dependency boundary check (.dependency-cruiser.cjs) over the product code and fails on any
// violation. A wrapper rather than the bare `depcruise` command because depcruise exits with the number of
// errors, and an exit status is that number modulo 256: a tree with exactly 256 violations would pass.
import { cruise } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

// The product's code. test/ and bench/ drive it from outside (they start the CLI, open the database) and
// are not layers of it.
const cruised = ["src", "db", "bots", "bin"];

const options = await extractDepcruiseOptions("./.dependency-cruiser.cjs");
const tsConfigFile = options.tsConfig?.fileName;
const tsConfig = tsConfigFile ? extractTSConfig(tsConfigFile) : undefined;
const report = await cruise(cruised, { ...options, outputType: "err" }, undefined, { tsConfig });
process.stdout.write(String(report.output));
process.exitCode = report.exitCode === 0 ? 0 : 1;
