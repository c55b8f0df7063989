/** Argument pieces shared by several tools, each described for the model. */
import { z } from "zod";
import { MAX_ROW_ID } from "../field-limits.ts";
import { isClockTime, isIsoDate } from "../local-time.ts";

export const idArgument = (what: string) =>
  z.coerce
    .number({ error: `must be the numeric id of the ${what}` })
    .int({ error: "must be a whole number" })
    .positive({ error: "must be positive" })
    .max(MAX_ROW_ID, { error: `no such ${what}` })
    .describe(`The ${what}'s id, from an earlier list or search result`);

export const isoDate = z
  .string()
  .refine(isIsoDate, { error: 'must be a date written YYYY-MM-DD, e.g. "2025-06-06"' })
  .describe("Local date, YYYY-MM-DD");

export const clockTime = z
  .string()
  .transform((value) => (/^\d:\d\d$/.test(value) ? `0${value}` : value))
  .refine(isClockTime, { error: 'must be a 24-hour local time written HH:MM, e.g. "14:30"' })
  .describe("Local 24-hour time, HH:MM");

export const searchQuery = z
  .string()
  .trim()
  .min(1, { error: "must not be empty" })
  .max(200, { error: "must be at most 200 characters" });
