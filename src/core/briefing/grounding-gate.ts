/**
 * The runner's use of the grounding check: one corrective turn naming the unbacked claims, then removal of
 * the sentences still unbacked, then the digest. The check itself lives in `src/core/grounding/`.
 */
import type { GroundingVerdict, Receipt } from "../domain.ts";
import { checkGrounding, describeUnbacked, removeUnbackedSentences } from "../grounding/index.ts";
import type { GroundingOptions } from "../grounding/types.ts";

export type GateResult =
  | { kind: "backed"; prose: string; verdict: GroundingVerdict }
  | { kind: "digest"; verdict: GroundingVerdict };

/**
 * `rewrite` asks the model once to correct its draft; it returns undefined when the model could not answer
 * (the gate then trims the first draft instead).
 */
export async function groundDraft(
  draft: string,
  receipts: readonly Receipt[],
  options: GroundingOptions,
  rewrite: (instruction: string) => Promise<string | undefined>,
): Promise<GateResult> {
  const first = checkGrounding(draft, receipts, options);
  if (first.unbacked.length === 0) {
    return {
      kind: "backed",
      prose: draft,
      verdict: { claimsChecked: first.claims.length, unbacked: [], action: "none" },
    };
  }
  const caught = first.unbacked.map((claim) => claim.text);
  const corrected = (await rewrite(describeUnbacked(first)))?.trim();
  let candidate = draft;
  let report = first;
  if (corrected) {
    const second = checkGrounding(corrected, receipts, options);
    if (second.unbacked.length === 0) {
      return {
        kind: "backed",
        prose: corrected,
        verdict: {
          claimsChecked: second.claims.length,
          unbacked: caught,
          action: "corrected",
          corrections: 1,
        },
      };
    }
    candidate = corrected;
    report = second;
  }
  const unbacked = unique([...caught, ...report.unbacked.map((claim) => claim.text)]);
  const trimmed = removeUnbackedSentences(candidate, report).trim();
  if (trimmed && checkGrounding(trimmed, receipts, options).unbacked.length === 0) {
    return {
      kind: "backed",
      prose: trimmed,
      verdict: {
        claimsChecked: report.claims.length,
        unbacked,
        action: "sentences_removed",
        corrections: corrected ? 1 : 0,
      },
    };
  }
  return {
    kind: "digest",
    verdict: {
      claimsChecked: report.claims.length,
      unbacked,
      action: "digest",
      corrections: corrected ? 1 : 0,
    },
  };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
