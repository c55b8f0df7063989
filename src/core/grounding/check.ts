import { DateTime, IANAZone } from "luxon";
import type { Receipt } from "../domain.ts";
import { findAbsenceClaims } from "./absence.ts";
import { findDateClaims } from "./dates.ts";
import { collectEvidence } from "./evidence.ts";
import { findItemClaims } from "./items.ts";
import { Mask } from "./mask.ts";
import { findNumberClaims } from "./numbers.ts";
import { splitSentences } from "./sentences.ts";
import { findTimeClaims } from "./times.ts";
import type { Claim, FoundClaim, GroundingOptions, GroundingReport } from "./types.ts";

/**
 * Finds every clock time, date, temperature, number and named item in briefing prose and marks the
 * ones no receipt of this run backs. It leans towards "backed" when unsure: an unbacked verdict
 * deletes a sentence, so a false alarm costs a true sentence.
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
  const evidence = collectEvidence(receipts, options.timeZone);
  const claims: Claim[] = [];
  const unbacked: Claim[] = [];
  splitSentences(prose).forEach((sentence, sentenceIndex) => {
    for (const found of claimsOf(sentence, options)) {
      const claim: Claim = {
        kind: found.kind,
        text: found.text,
        sentenceIndex,
        normalized: found.normalized,
      };
      claims.push(claim);
      if (!found.isBacked(evidence)) unbacked.push(claim);
    }
  });
  return { claims, unbacked };
}

/** The claims of one sentence in reading order; quoted names go first so their words are not re-read as dates. */
function claimsOf(sentence: string, options: GroundingOptions): FoundClaim[] {
  const mask = new Mask();
  // Absence claims first: "no tasks due today" is one claim, not an item "tasks due".
  const absences = findAbsenceClaims(sentence, mask);
  const items = findItemClaims(sentence, mask, options.knownNames ?? []);
  const found = [
    ...findTimeClaims(sentence, mask),
    ...findDateClaims(sentence, mask, options.localDate),
    ...findNumberClaims(sentence, mask),
    ...items,
    ...absences,
  ];
  return found.sort((a, b) => a.start - b.start || a.end - b.end);
}
