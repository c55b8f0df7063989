import { HELD_OUT } from "./test/core/grounding/corpus/held-out.ts";
import { CORPUS } from "./test/core/grounding/corpus/sentences.ts";
import { UNTOUCHED } from "./test/core/grounding/corpus/untouched.ts";
import { scoreCorpus } from "./test/core/grounding/corpus/score.ts";
const sets = { tuning: CORPUS, "held-out": HELD_OUT, untouched: UNTOUCHED } as const;
const want = process.argv.slice(2);
for (const [name, set] of Object.entries(sets)) {
  if (want.length && !want.includes(name)) continue;
  for (const path of ["briefing", "chat"] as const) {
    const s = await scoreCorpus(set, path);
    console.log(`## ${name}/${path}: honest ${s.honestKept}/${s.honest}, lies ${s.liesStopped}/${s.lies}`);
    console.log("  " + s.kinds.map((k) => `${k.kind} h${k.honestKept}/${k.honest} l${k.liesStopped}/${k.lies}`).join("; "));
    if (name !== "untouched" && (path === "briefing" || process.env.ALL))
      for (const r of s.results.filter((r) => !r.right))
        console.log(`   ${r.entry.honest ? "HONEST-REMOVED" : "LIE-KEPT"} [${r.entry.day}/${r.entry.kind}] ${r.entry.text}  ${r.unbacked.join(" | ")}`);
  }
}
