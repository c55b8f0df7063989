/**
 * Happenings: something said to have happened — "the plumber emailed you yesterday", "Sarah replied about
 * the quotes", "you've already called the bank". A task's title is an intention ("Email the plumber"), not a
 * happening, so what someone else did needs a receipt that reports it (a note, an event's description, a
 * headline); what the user did is the state "done" of the task it names.
 */
import { mentionedItems, nearestItems } from "./binding.ts";
import type { Mask } from "./mask.ts";
import type { Evidence, FoundClaim } from "./types.ts";
import { contentWords, stem, stemsMatch } from "./words.ts";

const VERBS = String.raw`e-?mailed|called|rang|phoned|texted|messaged|pinged|dm['’]?d|replied|responded|wrote(?:\s+back)?|sent(?:\s+(?:you|over|through|back|across))?|met|confirmed|approved|signed|paid|delivered|arrived|shipped|asked|invited|accepted|declined|rejected|returned|dropped\s+off|picked\s+up|fixed|reached\s+out|got\s+back|followed\s+up|left\s+(?:you\s+)?a\s+(?:message|voicemail|note)|mentioned|shared|forwarded|requested|complained|rescheduled\s+with\s+you|cancelled\s+on\s+you|visited|came\s+(?:by|round|over)|stopped\s+by|dropped\s+(?:in|by)|popped\s+(?:in|by|round)|swung\s+by|been\s+(?:round|over|by|in\s+touch)|got\s+in\s+touch|was\s+in\s+touch|rang\s+back|called\s+back|checked\s+in|heard\s+back|got\s+(?:a|an)\s+(?:reply|response|answer|email|message|call|text)|received\s+(?:a|an)\s+(?:reply|response|answer|email|message|call|text)|chased`;

const HAPPENED = new RegExp(
  String.raw`\b(?:(?:has|have|had|['’]s|['’]ve|already|just|finally|also|then|yesterday|earlier|recently)\s+)*(${VERBS})\b`,
  "giu",
);

/** Words before the verb that make it something other than a report: naming, passive, hypotheses, negation. */
const NOT_A_REPORT =
  /\b(?:task|event|project|item|note|story|something|one|list|meeting|headline|article|thing|file|document|is|was|are|were|be|been|being|if|once|when|whenever|until|unless|whether|hasn['’]t|haven['’]t|hadn['’]t|didn['’]t|not|never|yet|might|may|could|should|would|will|can|expect|expecting|waiting\s+for|wait\s+for|hoping|to|get|got|getting|a|an|the|your|so-called|i|i['’]ve|i\s+have|we|we['’]ve)\s+(?:(?:has|have|had|already|just|finally|also)\s+)*$/iu;

export function findHappeningClaims(sentence: string, mask: Mask, evidence: Evidence): FoundClaim[] {
  const claims: FoundClaim[] = [];
  const mentions = mentionedItems(sentence, evidence.facts);
  for (const match of sentence.matchAll(HAPPENED)) {
    const verb = match[1] ?? "";
    const verbStart = (match.index ?? 0) + match[0].length - verb.length;
    const start = match.index ?? 0;
    const end = verbStart + verb.length;
    if (!mask.isFree(verbStart, end)) continue;
    const before = sentence.slice(0, start);
    if (NOT_A_REPORT.test(before)) continue;
    const subject = /(\S+)\s*$/u.exec(before)?.[1]?.toLowerCase() ?? "";
    const you = /^you(?:['’]ve)?$/u.test(subject);
    const verbStem = stem(verb.split(/\s+/)[0]?.replace(/-/g, "") ?? verb);
    if (you) {
      // "You've already emailed the plumber": the task it names must be done.
      const bound = nearestItems(mentions, sentence, verbStart, end, (item) => item.family === "task");
      if (bound.length === 0) continue;
      const done = bound.some((mention) =>
        evidence.facts.items.some(
          (item) => item.family === "task" && item.title === mention.item.title && item.status === "done",
        ),
      );
      const title = bound[0]?.item.title ?? "";
      claims.push(claim(verb, verbStart, end, () => done, `the receipts show "${title}" still open`));
      continue;
    }
    const clause = contentWords(sentence).stems.filter((word) => !stemsMatch(word, verbStem));
    const reported = (found: Evidence): boolean =>
      found.facts.items.some(
        (item) => item.family !== "task" && hasBoth(`${item.title} ${item.extra}`, verbStem, clause),
      ) ||
      found.texts.some(
        (text) =>
          ` ${text.words} `.includes(` ${verb.toLowerCase()} `) &&
          clause.some((word) => text.stems.has(word)),
      );
    claims.push(claim(verb, verbStart, end, reported, "no receipt reports that this happened"));
  }
  return claims;
}

function hasBoth(text: string, verbStem: string, clause: readonly string[]): boolean {
  const stems = contentWords(text).stems.concat(text.toLowerCase().split(/\W+/).map(stem));
  return stems.some((word) => stemsMatch(word, verbStem)) && clause.some((word) => stems.includes(word));
}

function claim(
  verb: string,
  start: number,
  end: number,
  isBacked: (evidence: Evidence) => boolean,
  why: string,
): FoundClaim {
  return {
    kind: "happening",
    text: verb,
    normalized: verb.toLowerCase(),
    start,
    end,
    isBacked,
    reason: () => why,
  };
}
