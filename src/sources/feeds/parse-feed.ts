/**
 * Turns a fetched feed document (RSS 2.0, RSS 1.0/RDF, Atom 0.3/1.0 or JSON Feed) into plain-text items.
 * feedsmith does the format work; this module owns what we store: dedupe keys, plain text, absolute
 * links and dates, and the guarantee that hostile input becomes a `FeedParseError`, never a crash.
 */
import { createHash } from "node:crypto";
import { parseFeed } from "feedsmith";
import { BriefbotError, errorMessage } from "../../core/errors.ts";
import { looksBinary, storableText } from "../storable-text.ts";
import { parseFeedDate } from "./parse-date.ts";
import {
  collapseWhitespace,
  htmlToPlainText,
  MAX_SUMMARY_LENGTH,
  MAX_TITLE_LENGTH,
  truncateText,
} from "./plain-text.ts";

export type FeedFormat = "rss" | "atom" | "rdf" | "json";

export interface ParsedFeedItem {
  /** Dedupe key: guid, else id, else link, else a hash of title and summary. */
  guid: string;
  title: string;
  link: string | null;
  summary: string;
  publishedAt: Date | null;
}

export interface ParsedFeed {
  format: FeedFormat;
  title: string;
  items: ParsedFeedItem[];
}

export class FeedParseError extends BriefbotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("feed_unreadable", message, options);
  }
}

/** Items past this are ignored: a feed that lists more is either an archive dump or an attack. */
export const MAX_ITEMS_PER_FEED = 500;
/** Longer keys would overflow the unique index; they are hashed instead. */
const MAX_GUID_LENGTH = 500;

interface RawItem {
  id: string;
  title: string;
  link: string;
  /** Markup or plain text, as `summaryIsHtml` says. */
  summary: string;
  summaryIsHtml: boolean;
  date: string;
}

export function parseFeedDocument(text: string, feedUrl: string, maxItems = MAX_ITEMS_PER_FEED): ParsedFeed {
  const document = prepareDocument(text);
  if (!document) throw new FeedParseError("the response is empty, not a feed");
  if (looksBinary(document)) throw new FeedParseError("the response is binary data, not a feed");

  let parsed: ReturnType<typeof parseFeed>;
  try {
    parsed = parseFeed(document);
  } catch (error) {
    throw new FeedParseError(describeParseFailure(document, error), { cause: error });
  }

  const { title, rawItems } = extract(parsed);
  const items: ParsedFeedItem[] = [];
  for (const raw of rawItems.slice(0, maxItems)) {
    const item = normaliseItem(raw, feedUrl);
    if (item) items.push(item);
  }
  return {
    format: parsed.format,
    title: truncateText(storableText(htmlToPlainText(title)), MAX_TITLE_LENGTH),
    items,
  };
}

/**
 * Drops what a feed parser must never act on: a BOM, stray text before the XML declaration and any
 * DOCTYPE (internal entity definitions are how "billion laughs" and XXE work; no feed needs them).
 */
function prepareDocument(text: string): string {
  let document = text.replace(/^\uFEFF/, "").trimStart();
  const prologEnd = Math.min(document.length, 65_536);
  const doctypeStart = document.slice(0, prologEnd).search(/<!DOCTYPE/i);
  if (doctypeStart >= 0) {
    const end = doctypeEnd(document, doctypeStart);
    document = document.slice(0, doctypeStart) + document.slice(end);
  }
  return document;
}

/** Finds the `>` closing a DOCTYPE, skipping an internal subset in brackets and quoted strings. */
function doctypeEnd(document: string, start: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let index = start + 2; index < document.length; index++) {
    const char = document[index];
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "[") depth++;
    else if (char === "]") depth = Math.max(0, depth - 1);
    else if (char === ">" && depth === 0) return index + 1;
  }
  return document.length;
}

function describeParseFailure(document: string, error: unknown): string {
  const reason = errorMessage(error);
  const looksLikeHtml = /^(<!--[\s\S]*?-->\s*)*<html[\s>]/i.test(document.slice(0, 2000));
  if (looksLikeHtml) return "the address returned an HTML page, not a feed";
  if (/unrecognized/i.test(reason)) return "not a recognised feed (expected RSS, Atom, RDF or JSON Feed)";
  return `malformed feed (${errorMessage(error, { cause: true })})`;
}

type AnyParsedFeed = ReturnType<typeof parseFeed>;

function extract(parsed: AnyParsedFeed): { title: string; rawItems: RawItem[] } {
  switch (parsed.format) {
    case "rss": {
      const items = asArray(parsed.feed.items).map((item) => {
        const guid = text(item.guid?.value);
        const html = text(item.description) || text(item.content?.encoded);
        return {
          id: guid,
          title: text(item.title),
          link: text(item.link) || (item.guid?.isPermaLink !== false && looksLikeUrl(guid) ? guid : ""),
          summary: html,
          summaryIsHtml: true,
          date: text(item.pubDate) || text(item.dc?.dates?.[0]) || text(item.atom?.published),
        };
      });
      return { title: text(parsed.feed.title), rawItems: items };
    }
    case "rdf": {
      const items = asArray(parsed.feed.items).map((item) => ({
        id: text(item.rdf?.about),
        title: text(item.title),
        link: text(item.link),
        summary: text(item.description) || text(item.content?.encoded),
        summaryIsHtml: true,
        date: text(item.dc?.dates?.[0]),
      }));
      return { title: text(parsed.feed.title), rawItems: items };
    }
    case "atom": {
      const items = asArray(parsed.feed.entries).map((entry) => {
        const links = asArray(entry.links);
        const alternate = links.find((link) => !link.rel || link.rel === "alternate") ?? links[0];
        const textConstruct = entry.summary?.value ? entry.summary : entry.content;
        return {
          id: text(entry.id),
          title: atomText(entry.title),
          link: text(alternate?.href),
          summary: text(textConstruct?.value),
          summaryIsHtml: isHtmlType(textConstruct?.type),
          date: text(entry.published) || text(entry.updated),
        };
      });
      return { title: atomText(parsed.feed.title), rawItems: items };
    }
    case "json": {
      const items = asArray(parsed.feed.items).map((item) => {
        const plain = text(item.summary) || text(item.content_text);
        return {
          id: text(item.id),
          title: text(item.title),
          link: text(item.url) || text(item.external_url),
          summary: plain || text(item.content_html),
          summaryIsHtml: !plain,
          date: text(item.date_published) || text(item.date_modified),
        };
      });
      return { title: text(parsed.feed.title), rawItems: items };
    }
  }
}

/** Everything stored is cleaned first: a NUL in one guid would otherwise fail the whole feed's transaction. */
function normaliseItem(dirty: RawItem, feedUrl: string): ParsedFeedItem | null {
  const raw: RawItem = {
    ...dirty,
    id: storableText(dirty.id),
    title: storableText(dirty.title),
    link: storableText(dirty.link),
    summary: storableText(dirty.summary),
    date: storableText(dirty.date),
  };
  const summaryText = raw.summaryIsHtml ? htmlToPlainText(raw.summary) : collapseWhitespace(raw.summary);
  const summary = truncateText(summaryText, MAX_SUMMARY_LENGTH);
  const link = resolveLink(raw.link, feedUrl);
  const plainTitle = htmlToPlainText(raw.title);
  const title = truncateText(plainTitle || truncateText(summaryText, 120) || link || "", MAX_TITLE_LENGTH);
  if (!title && !summary && !link) return null;

  const key = collapseWhitespace(raw.id) || link || `sha256:${sha256(`${plainTitle}\n${summaryText}`)}`;
  return {
    guid: key.length > MAX_GUID_LENGTH ? `sha256:${sha256(key)}` : key,
    title: title || "(untitled)",
    link,
    summary,
    publishedAt: parseFeedDate(raw.date),
  };
}

/** Relative links are resolved against the feed address; only http(s) links survive (no javascript:). */
export function resolveLink(href: string, feedUrl: string): string | null {
  const trimmed = href.trim();
  if (!trimmed) return null;
  try {
    const url = new URL(trimmed, feedUrl);
    return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : null;
  } catch {
    return null;
  }
}

function atomText(value: { value?: unknown; type?: unknown } | undefined): string {
  return text(value?.value);
}

function isHtmlType(type: string | undefined): boolean {
  // Atom says text unless told otherwise; "text/html" is a common real-world misspelling of "html".
  return type !== undefined && /html/i.test(type);
}

function looksLikeUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

/** feedsmith types promise strings, but hostile markup can yield other shapes; anything else is "". */
function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return "";
}

function asArray<T>(value: T[] | undefined): T[] {
  return Array.isArray(value) ? value : [];
}

function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 32);
}
