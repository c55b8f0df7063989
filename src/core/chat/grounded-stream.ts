/**
 * A chat answer streams to the user as the model writes it, but only as far as the gate backs it: each time
 * a sentence completes, the text so far is checked against the receipts in the answer's context, and the
 * backed sentences are passed on. At the first unbacked sentence the stream stops; the settled reply (the
 * gate's verdict on the whole answer) replaces what was shown. So a lie is never on screen, even briefly.
 */
import { sentenceSpans } from "../grounding/sentences.ts";
import type { GroundingReport } from "../grounding/types.ts";

export function groundedStream(
  emit: (fragment: string) => void,
  check: (text: string) => GroundingReport,
): (fragment: string) => void {
  let buffer = "";
  let shown = 0;
  let stopped = false;
  return (fragment) => {
    buffer += fragment;
    if (stopped) return;
    const spans = sentenceSpans(buffer);
    // The last sentence may still be growing; the ones before it are complete.
    const complete = spans.slice(0, -1);
    const last = complete.at(-1);
    if (last === undefined || last.end <= shown) return;
    const text = buffer.slice(0, last.end);
    const report = check(text);
    const firstUnbacked = Math.min(...report.unbacked.map((claim) => claim.sentenceIndex), Infinity);
    const upTo = Number.isFinite(firstUnbacked) ? (complete[firstUnbacked]?.start ?? shown) : last.end;
    if (upTo > shown) {
      emit(buffer.slice(shown, upTo));
      shown = upTo;
    }
    if (Number.isFinite(firstUnbacked)) stopped = true;
  };
}
