/**
 * The one grounding gate every answer the user sees passes (briefings, check-ins, thread follow-ups, plain
 * chat): check the draft against the receipts in its context; if anything is unbacked, one corrective turn
 * (which may look things up: its fresh receipts count); then the sentences still unbacked go; and when
 * nothing backed is left, the caller's plain answer from the receipts. A rewrite must still name what the
 * draft rightly named: one that drops or denies it loses to the earlier draft.
 */
import type { ClaimVerdict, GroundingVerdict, Receipt, SentenceVerdict } from "../domain.ts";
import { checkGrounding } from "./check.ts";
import { describeUnbacked, reason, removeUnbackedSentences } from "./repair.ts";
import { splitSentences } from "./sentences.ts";
import type { GroundingOptions, GroundingReport } from "./types.ts";
import { allStems, contentWords, stemsMatch } from "./words.ts";

export interface Rewrite {
  /** The corrected text; undefined when the model could not answer. */
  text: string | undefined;
  /** Receipts of fresh calls the corrective turn made. */
  receipts: readonly Receipt[];
}

export interface GateInput {
  draft: string;
  /** Every receipt in the answer's context: the run's, the thread's, and this answer's fresh calls. */
  receipts: readonly Receipt[];
  options: GroundingOptions;
  /** The one corrective turn, given the instruction naming what is unbacked. */
  rewrite: (instruction: string) => Promise<Rewrite>;
  /** How the instruction names the text and its receipts. Default: the briefing, this run. */
  subject?: { text: string; source: string };
}

export type GateResult =
  /** The text to deliver: the draft, the rewrite, or one of them without its unbacked sentences. */
  | { kind: "backed"; text: string; verdict: GroundingVerdict; receipts: readonly Receipt[] }
  /**
   * The rewrite failed (still unbacked, or dropping what the draft rightly named) and the earlier draft,
   * trimmed, is kept: the caller adds what the receipts hold (a digest), since the draft alone was judged
   * wanting.
   */
  | { kind: "draft"; text: string; verdict: GroundingVerdict; receipts: readonly Receipt[] }
  /** Nothing backed is left: the caller answers plainly from the receipts. */
  | { kind: "unbacked"; verdict: GroundingVerdict; receipts: readonly Receipt[] };

export async function groundAnswer(input: GateInput): Promise<GateResult> {
  const { draft, options } = input;
  const first = checkGrounding(draft, input.receipts, options);
  if (first.unbacked.length === 0) {
    return {
      kind: "backed",
      text: draft,
      verdict: verdict(
        first,
        { action: "none", corrections: 0, removed: 0, unbacked: [] },
        { text: draft, receipts: input.receipts, delivered: draft },
      ),
      receipts: input.receipts,
    };
  }
  const caught = first.unbacked.map((claim) => claim.text);
  const rewrite = await input.rewrite(describeUnbacked(first, input.subject));
  const receipts = [...input.receipts, ...rewrite.receipts];
  const corrected = rewrite.text?.trim();
  const named = namedItems(draft, first);

  const second = corrected ? checkGrounding(corrected, receipts, options) : undefined;
  if (corrected && second) {
    if (keepsNamed(corrected, named)) {
      if (second.unbacked.length === 0) {
        return {
          kind: "backed",
          text: corrected,
          verdict: verdict(
            second,
            { action: "corrected", corrections: 1, removed: 0, unbacked: caught },
            { text: corrected, receipts, delivered: corrected },
          ),
          receipts,
        };
      }
      const trimmed = trim(corrected, second, receipts, options);
      if (trimmed && keepsNamed(trimmed, named)) {
        return {
          kind: "backed",
          text: trimmed,
          verdict: verdict(
            second,
            {
              action: "sentences_removed",
              corrections: 1,
              removed: removedCount(corrected, trimmed),
              unbacked: unique([...caught, ...second.unbacked.map((claim) => claim.text)]),
            },
            { text: corrected, receipts, delivered: trimmed },
          ),
          receipts,
        };
      }
    }
  }

  // The rewrite is no better: the earlier draft without its unbacked sentences, if anything is left.
  const recheck = checkGrounding(draft, receipts, options);
  const trimmedDraft = trim(draft, recheck, receipts, options);
  const figures = {
    corrections: corrected ? 1 : 0,
    unbacked: unique([
      ...caught,
      ...(second?.unbacked ?? []).map((claim) => claim.text),
      ...recheck.unbacked.map((claim) => claim.text),
    ]),
  };
  if (trimmedDraft) {
    return {
      kind: corrected ? "draft" : "backed",
      text: trimmedDraft,
      verdict: verdict(
        recheck,
        {
          ...figures,
          action: corrected ? "draft_with_digest" : "sentences_removed",
          removed: removedCount(draft, trimmedDraft),
        },
        { text: draft, receipts, delivered: trimmedDraft },
      ),
      receipts,
    };
  }
  return {
    kind: "unbacked",
    verdict: verdict(
      recheck,
      { ...figures, action: "digest", removed: splitSentences(draft).length },
      { text: draft, receipts, delivered: undefined },
    ),
    receipts,
  };
}

function verdict(
  report: GroundingReport,
  fields: Pick<GroundingVerdict, "action" | "corrections" | "removed" | "unbacked">,
  judged: { text: string; receipts: readonly Receipt[]; delivered: string | undefined },
): GroundingVerdict {
  return {
    claimsChecked: report.claims.length,
    ...fields,
    sentences: sentenceVerdicts(judged.text, report, judged.receipts, judged.delivered),
  };
}

/** The text without its unbacked sentences, when that leaves something fully backed; else "". */
function trim(
  text: string,
  report: GroundingReport,
  receipts: readonly Receipt[],
  options: GroundingOptions,
): string {
  const trimmed = removeUnbackedSentences(text, report).trim();
  if (!trimmed) return "";
  return checkGrounding(trimmed, receipts, options).unbacked.length === 0 ? trimmed : "";
}

/** The stems of each backed named item of the draft: what a rewrite must still name. */
function namedItems(draft: string, report: GroundingReport): string[][] {
  const unbacked = new Set(report.unbacked);
  return report.claims
    .filter((claim) => claim.kind === "item" && !unbacked.has(claim))
    .map((claim) => contentWords(claim.text).stems)
    .filter((stems) => stems.length > 0 && draft.length > 0);
}

/** Whether the text still names each item (most of its words), however it rephrases around it. */
function keepsNamed(text: string, named: readonly string[][]): boolean {
  const stems = allStems(text);
  return named.every((item) => {
    const found = item.filter((wanted) => [...stems].some((stem) => stemsMatch(stem, wanted))).length;
    return found >= Math.ceil(item.length * 0.6 - 1e-9);
  });
}

function removedCount(before: string, after: string): number {
  return Math.max(0, splitSentences(before).length - splitSentences(after).length);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** Each sentence of the judged text with its claims: the receipt behind each, or why it is unbacked. */
function sentenceVerdicts(
  text: string,
  report: GroundingReport,
  receipts: readonly Receipt[],
  delivered: string | undefined,
): SentenceVerdict[] {
  const tools = new Map(receipts.map((receipt) => [receipt.id, receipt.toolName]));
  const unbacked = new Set(report.unbacked);
  const kept = new Set(delivered === undefined ? [] : splitSentences(delivered));
  return splitSentences(text).map((sentence, index) => ({
    text: sentence,
    kept: kept.has(sentence),
    claims: report.claims
      .filter((claim) => claim.sentenceIndex === index)
      .map((claim): ClaimVerdict => {
        if (unbacked.has(claim)) {
          return {
            kind: claim.kind,
            text: claim.text,
            backed: false,
            reason: report.reasons?.get(claim) ?? reason(claim),
          };
        }
        const id = report.backing?.get(claim);
        const tool = id === undefined ? undefined : tools.get(id);
        return {
          kind: claim.kind,
          text: claim.text,
          backed: true,
          ...(id !== undefined && tool !== undefined ? { receipt: { id, tool } } : {}),
        };
      }),
  }));
}
