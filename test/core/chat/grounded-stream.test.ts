import { expect, it } from "vitest";
import { groundedStream } from "../../../src/core/chat/grounded-stream.ts";
import { checkGrounding } from "../../../src/core/grounding/check.ts";
import { gateOptions } from "../../../src/core/grounding/options.ts";
import { BUSY, USER } from "../grounding/corpus/days.ts";

const options = gateOptions(USER, new Date("2026-12-01T07:00:00Z"), BUSY.localDate);
const check = (text: string) => checkGrounding(text, BUSY.receipts, options);

function streamed(answer: string, size = 3): string {
  let shown = "";
  const push = groundedStream((fragment) => {
    shown += fragment;
  }, check);
  for (let index = 0; index < answer.length; index += size) push(answer.slice(index, index + size));
  return shown;
}

it("streams backed sentences as they complete and stops before the first unbacked one", () => {
  const answer =
    "The design review runs from 11 to noon. The design review is tomorrow morning. Lunch with Sam is at 12:30.";
  expect(streamed(answer)).toBe("The design review runs from 11 to noon. ");
});

it("holds a sentence back until it is complete, so half a claim is never shown", () => {
  expect(streamed("The design review runs from 11 to")).toBe("");
  expect(streamed("Your 1:1 with Priya is at half past three this afternoon. And")).toBe(
    "Your 1:1 with Priya is at half past three this afternoon.",
  );
});
