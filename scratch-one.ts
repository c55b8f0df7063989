import { checkGrounding } from "./src/core/grounding/check.ts";
import { gateOptions } from "./src/core/grounding/options.ts";
import { DAYS, USER } from "./test/core/grounding/corpus/days.ts";
const [dayName = "busy", ...rest] = process.argv.slice(2);
const day = DAYS[dayName]!;
const options = gateOptions(USER, new Date(`${day.localDate}T${day.localTime}:00Z`), day.localDate);
const report = checkGrounding(rest.join(" "), day.receipts, options);
for (const c of report.claims) console.log(report.unbacked.includes(c) ? "UNBACKED" : "ok      ", c.kind, JSON.stringify(c.text), c.normalized, report.reasons?.get(c) ?? "");
