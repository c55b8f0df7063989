import { DateTime, IANAZone } from "luxon";
import type { Receipt } from "../domain.ts";
import { findAbsenceClaims } from "./absence.ts";
import { findDateClaims } from "./dates.ts";
import { findDayClaims } from "./days.ts";
import { collectEvidence } from "./evidence.ts";
import { findHappeningClaims } from "./happenings.ts";
import { findItemClaims } from "./items.ts";
import { Mask } from "./mask.ts";
import { findNameClaims } from "./names.ts";
import { findNumberClaims } from "./numbers.ts";
import { findQuantityClaims } from "./quantities.ts";
import { splitSentences } from "./sentences.ts";
import { findStateClaims } from "./states.ts";
import { findTimeClaims } from "./times.ts";
import type { Claim, Evidence, FoundClaim, GroundingOptions, GroundingReport } from "./types.ts";
import { findWeatherClaims } from "./weather.ts";

/** Kinds judged against the receipts' facts as a whole (a bound item, a day's events): no one receipt to test. */
const WHOLE_KINDS = new Set<Claim["kind"]>(["day", "state", "quantity", "absence"]);

/**
 * Finds every clock time, date, temperature, number, named item, day, state, weather word, quantifier,
 * name and happening in prose and marks the ones no receipt of this run backs. It leans towards "backed"
 * when unsure: an unbacked verdict deletes a sentence, so a false alarm costs a true sentence.
 */
export function checkGrounding(
  prose: string,
  receipts: readonly Receipt[],
  options: GroundingOptions,
): GroundingReport {
  if (!IANAZone.isValidZone(options.timeZone)) {
    throw new Error(`checkGrounding: unknown time zone "${options.timeZone}"`);
  }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(options.localDate) || !DateTime.fromISO(options.localDate).isValid) {
    throw new Error(`checkGrounding: localDate must be YYYY-MM-DD, got "${options.localDate}"`);
  }
  const evidence = collectEvidence(receipts, options.timeZone, options.localDate);
  const report: GroundingReport = { claims: [], unbacked: [], reasons: new Map(), backing: new Map() };
  const sentences = splitSentences(prose);
  const single = new Map<number, Evidence>();
  const evidenceOf = (receipt: Receipt): Evidence => {
    let found = single.get(receipt.id);
    if (!found) {
      found = collectEvidence([receipt], options.timeZone, options.localDate);
      single.set(receipt.id, found);
    }
    return found;
  };
  sentences.forEach((sentence, sentenceIndex) => {
    const prior = sentences.slice(0, sentenceIndex).join(" ");
    for (const found of claimsOf(sentence, evidence, options, prior)) {
      const claim: Claim = {
        kind: found.kind,
        text: found.text,
        sentenceIndex,
        normalized: found.normalized,
      };
      report.claims.push(claim);
      if (!found.isBacked(evidence)) {
        report.unbacked.push(claim);
        const why = found.reason?.(evidence);
        if (why) report.reasons?.set(claim, why);
      } else if (found.backedBy !== undefined) {
        report.backing?.set(claim, found.backedBy);
      } else if (!WHOLE_KINDS.has(found.kind)) {
        const by = receipts.find((receipt) => !receipt.error && found.isBacked(evidenceOf(receipt)));
        if (by) report.backing?.set(claim, by.id);
      }
    }
  });
  return report;
}

/** The claims of one sentence in reading order; quoted names go first so their words are not re-read as dates. */
function claimsOf(
  sentence: string,
  evidence: Evidence,
  options: GroundingOptions,
  prior: string,
): FoundClaim[] {
  const mask = new Mask();
  // Absence claims first: "no tasks due today" is one claim, not an item "tasks due".
  const absences = findAbsenceClaims(sentence, mask);
  const items = findItemClaims(sentence, mask, options.knownNames ?? []);
  // "Nothing until noon" is one claim about free time, not also a claim that something is at noon.
  const quantities = findQuantityClaims(sentence, mask, evidence, options, prior);
  const weather = findWeatherClaims(sentence, mask, evidence);
  const found = [
    ...findTimeClaims(sentence, mask, evidence),
    ...findDateClaims(sentence, mask, options.localDate),
    ...findNumberClaims(sentence, mask),
    ...items,
    ...absences,
    ...quantities,
    ...weather,
    ...findDayClaims(sentence, evidence),
    ...findStateClaims(sentence, evidence),
    ...findHappeningClaims(sentence, mask, evidence),
    // A name inside a named item ("Alex Morgan", "new AI rules") is that item's claim already, unless no
    // receipt holds the name itself: "Acme's Leeds office" binds to Acme's items by "Acme" alone.
    ...findNameClaims(sentence, mask, options).filter((name) => {
      const holding = items.filter((item) => item.start <= name.start && name.end <= item.end);
      // An unbacked item is removed for itself already: its names would only say so twice.
      return (
        holding.length === 0 || (holding.every((item) => item.isBacked(evidence)) && !name.isBacked(evidence))
      );
    }),
  ];
  return found.sort((a, b) => a.start - b.start || a.end - b.end);
}
