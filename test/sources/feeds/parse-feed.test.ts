import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  FeedParseError,
  MAX_ITEMS_PER_FEED,
  parseFeedDocument,
} from "../../../src/sources/feeds/parse-feed.ts";
import { decodeBody } from "../../../src/sources/http-cache-fetch.ts";
import { REAL_WORLD_FIXTURES } from "../../helpers/shared-fixtures.ts";
import {
  BILLION_LAUGHS,
  deeplyNestedFeed,
  EXTERNAL_ENTITY,
  hugeItemFeed,
  manyItemsFeed,
  SCRIPT_ITEM,
} from "./hostile-feeds.ts";

const REAL_WORLD = join(REAL_WORLD_FIXTURES, "feeds");

/** Reads a fixture as bytes and decodes it the way a sync does (no Content-Type charset). */
function fixture(name: string): string {
  return decodeBody(new Uint8Array(readFileSync(`${REAL_WORLD}/${name}`)));
}

function parseFixture(name: string, feedUrl = `https://feeds.example/${name}`) {
  return parseFeedDocument(fixture(name), feedUrl);
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

describe("parseFeedDocument on the real-world corpus", () => {
  it("RSS 2.0 (Ars Technica): CDATA title and summary, guid, RFC 822 date", () => {
    const feed = parseFixture("rss2-arstechnica-cdata-content-encoded.xml");
    expect(feed.format).toBe("rss");
    expect(feed.title).toBe("Ars Technica");
    const [first] = feed.items;
    expect(first).toEqual({
      guid: "https://arstechnica.com/?p=1546121",
      title: "Apple isn’t the most cash-rich company in the world anymore, but it doesn’t matter",
      link: "https://arstechnica.com/?p=1546121",
      summary: "Alphabet has $117 billion in cash on hand.",
      publishedAt: new Date("2019-08-05T23:11:09Z"),
    });
    for (const item of feed.items) {
      expect(item.summary.length).toBeLessThanOrEqual(400);
      expect(item.summary).not.toMatch(/<[a-z]/i);
    }
  });

  it("Atom (GitHub releases): relative links resolved against the feed URL, offsets normalised", () => {
    const feed = parseFixture(
      "atom-github-releases-relative-links.atom",
      "https://github.com/gulpjs/gulp/releases.atom",
    );
    expect(feed.format).toBe("atom");
    expect(feed.title).toBe("Release notes from gulp");
    expect(feed.items[0]).toEqual({
      guid: "tag:github.com,2008:Repository/11167738/v3.9.0",
      title: "v3.9.0",
      link: "https://github.com/gulpjs/gulp/releases/tag/v3.9.0",
      summary: "3.9.0",
      publishedAt: new Date("2015-06-01T21:49:41Z"),
    });
    expect(feed.items.map((item) => item.title).slice(0, 3)).toEqual(["v3.9.0", "v3.8.11", "v3.8.10"]);
  });

  it("Atom with a newline before the XML declaration and a text/html content type", () => {
    const feed = parseFixture("atom-leading-newline-before-xmldecl.xml");
    expect(feed.title).toBe("Scattered Thoughts");
    expect(feed.items).toHaveLength(1);
    expect(feed.items[0]?.link).toBe("https://www.scattered-thoughts.net/log/0042/");
    expect(feed.items[0]?.summary).toBe("0042: consulting lessons, there are no strings on me");
    expect(iso(feed.items[0]?.publishedAt ?? null)).toBe("2023-12-01T00:00:00.000Z");
  });

  it("Atom inline XHTML content becomes text, and an untitled entry is named from it", () => {
    const feed = parseFixture("atom-xhtml-inline-content.xml");
    expect(feed.items).toHaveLength(1);
    expect(feed.items[0]?.summary).toBe("Example Atom");
    expect(feed.items[0]?.title).toBe("Example Atom");
    expect(feed.items[0]?.guid).toMatch(/^sha256:[0-9a-f]{32}$/);
  });

  it("Atom with escaped XHTML, empty published and external content", () => {
    const feed = parseFixture("atom-xhtml-typed-but-escaped.xml");
    expect(feed.items.map((item) => [item.title, item.summary, iso(item.publishedAt)])).toEqual([
      ["Entry with external content", "", "2024-01-01T11:00:00.000Z"],
      ["Entry with XHTML content", "XHTML content", "2024-01-01T11:15:00.000Z"],
    ]);
  });

  it("Atom 0.3 declared as cp1252 decodes byte 0x80 as the euro sign", () => {
    const feed = parseFixture("atom03-cp1252-declared.xml");
    expect(feed.format).toBe("atom");
    expect(feed.title).toBe("€");
    expect(feed.items).toEqual([]);
  });

  it("JSON Feed 1.1: summary preferred, HTML-only content stripped, date_modified as fallback", () => {
    const feed = parseFixture("jsonfeed-1.1-items.json");
    expect(feed.format).toBe("json");
    expect(feed.title).toBe("Test Feed");
    expect(feed.items).toEqual([
      {
        guid: "http://example.com/item1",
        title: "Comprehensive Item",
        link: "http://example.com/item1",
        summary: "A comprehensive JSON Feed item with all fields",
        publishedAt: new Date("2024-01-01T10:00:00Z"),
      },
      {
        guid: "http://example.com/item2",
        title: "Simple Item",
        link: "http://example.com/item2",
        summary: "Simple plain text content",
        publishedAt: new Date("2024-01-02T10:00:00Z"),
      },
      {
        guid: "http://example.com/item3",
        title: "Item with only HTML content",
        link: null,
        summary: "HTML Only This item has only HTML content",
        publishedAt: new Date("2024-01-03T10:00:00Z"),
      },
    ]);
  });

  it("out-of-range character references become U+FFFD", () => {
    expect(parseFixture("rss-charref-out-of-range.xml").title).toBe("a \uFFFD b \uFFFD c \uFFFD d");
  });

  it("an external DOCTYPE is dropped, not fetched, and the feed still parses", () => {
    const feed = parseFixture("rss-external-doctype.xml");
    expect(feed.title).toBe("found");
  });

  it("an unclosed root tag is a recorded parse error, not a crash", () => {
    expect(() => parseFixture("rss-unclosed-root-tag.xml")).toThrow(FeedParseError);
    expect(() => parseFixture("rss-unclosed-root-tag.xml")).toThrow(/malformed feed/);
  });

  it("RSS 1.0 / RDF: items found even when the channel's rdf:Seq lists other URLs", () => {
    for (const name of ["rss1-rdf-xmlcom.rdf", "rss1-rdf-items-seq-mismatch.rdf"]) {
      const feed = parseFixture(name);
      expect(feed.format).toBe("rdf");
      expect(feed.title).toBe("XML.com");
      expect(feed.items.map((item) => [item.guid, item.title])).toEqual([
        ["http://xml.com/pub/2000/08/09/xslt/xslt.html", "Processing Inclusions with XSLT"],
        ["http://xml.com/pub/2000/08/09/rdfdb/index.html", "Putting RDF to Work"],
      ]);
      expect(feed.items[0]?.summary).toBe(
        "Processing document inclusions with general XML tools can be problematic. This article proposes a way of preserving inclusion information through SAX-based processing.",
      );
      expect(feed.items[0]?.publishedAt).toBeNull();
    }
  });

  it("ISO-8859-2 with no guid: Polish text decoded, link used as the dedupe key", () => {
    const feed = parseFixture("rss2-iso-8859-2-no-guid.rss");
    expect(feed.title).toBe("EXAMPLE.pl");
    expect(feed.items).toEqual([
      {
        guid: "http://www.example.pl/news/1",
        title: "ZAŻÓŁĆ GĘSLĄ JAŹŃ",
        link: "http://www.example.pl/news/1",
        summary: "Szedł sasza suchą szosą",
        publishedAt: new Date("2019-10-18T15:27:37Z"),
      },
    ]);
  });

  it("naked HTML in an RSS description keeps its order as text", () => {
    const feed = parseFixture("rss2-naked-html-in-description.xml");
    expect(feed.items[0]?.summary).toBe(
      "Task_A 2024-08-07T15:33:29+00:00 Description for Task A Task_B 2024-08-06T08:45:27+00:00 Description for Task B",
    );
    expect(feed.items[0]?.guid).toBe("http://example.com/1");
  });

  it("same link with different guids stays four items (wrong weekday in the date is ignored)", () => {
    const feed = parseFixture("rss2-same-link-different-guid.xml");
    expect(feed.items.map((item) => item.guid)).toEqual([
      "0524a046-df56-11ea-8bc9-47d63411283f",
      "0524a35c-df56-11ea-8bca-43f820f3bd93",
      "0524a442-df56-11ea-8bcb-035a71f5f71a",
      "0524a53c-df56-11ea-8bcc-8f0977d58351",
    ]);
    expect(new Set(feed.items.map((item) => item.link)).size).toBe(3);
    expect(iso(feed.items[0]?.publishedAt ?? null)).toBe("2019-09-06T16:20:00.000Z");
  });
});

describe("parseFeedDocument on hostile input", () => {
  it("does not expand billion-laughs entities", () => {
    const feed = parseFeedDocument(BILLION_LAUGHS, "https://evil.example/feed");
    expect(feed.items).toHaveLength(1);
    expect(feed.items[0]?.title.length).toBeLessThan(100);
    expect(feed.items[0]?.title).not.toContain("lollol");
    expect(feed.title).not.toContain("lollol");
  });

  it("never resolves external entities", () => {
    const feed = parseFeedDocument(EXTERNAL_ENTITY, "https://evil.example/feed");
    expect(feed.items[0]?.title).not.toContain("root:");
    expect(feed.items[0]?.guid).toBe("xxe-1");
  });

  it("strips script, style and images, drops javascript: links, resolves relative ones, nulls bad dates", () => {
    const feed = parseFeedDocument(SCRIPT_ITEM, "https://news.example/feed.xml");
    const [scripted, relative] = feed.items;
    expect(scripted?.title).toBe("Breaking news");
    expect(scripted?.summary).toBe("Real text. More text.");
    expect(scripted?.link).toBeNull();
    expect(scripted?.publishedAt).toBeNull();
    expect(relative?.link).toBe("https://news.example/articles/2");
    expect(relative?.guid).toBe("https://news.example/articles/2");
    expect(relative?.summary).toBe("bold and & entity");
    expect(relative?.publishedAt).toEqual(new Date("2025-06-03T08:30:00Z"));
  });

  it("trims a huge item to a short summary", () => {
    const feed = parseFeedDocument(hugeItemFeed(3 * 1024 * 1024), "https://big.example/feed");
    expect(feed.items).toHaveLength(2);
    expect(feed.items[0]?.summary.length).toBeLessThanOrEqual(400);
    expect(feed.items[0]?.summary.endsWith("…")).toBe(true);
    expect(feed.items[1]?.summary).toBe("short");
  });

  it(`keeps at most ${MAX_ITEMS_PER_FEED} items`, () => {
    const feed = parseFeedDocument(manyItemsFeed(MAX_ITEMS_PER_FEED + 50), "https://many.example/feed");
    expect(feed.items).toHaveLength(MAX_ITEMS_PER_FEED);
    expect(feed.items[0]?.title).toBe("Item 0");
  });

  it("survives deeply nested markup", () => {
    const feed = parseFeedDocument(deeplyNestedFeed(5000), "https://deep.example/feed");
    expect(feed.items[0]?.title).toBe("t");
  });

  it("hashes an over-long guid so it fits the unique index", () => {
    const longGuid = "g".repeat(5000);
    const feed = parseFeedDocument(
      `<rss version="2.0"><channel><title>x</title><item><title>a</title><guid>${longGuid}</guid></item></channel></rss>`,
      "https://x.example/",
    );
    expect(feed.items[0]?.guid).toMatch(/^sha256:/);
  });

  it.each([
    ["an empty body", "", /empty/],
    ["plain text", "hello world", /not a recognised feed/],
    [
      "an HTML page",
      "<!doctype html><html><head><title>Hi</title></head><body>page</body></html>",
      /HTML page/,
    ],
    ["truncated JSON", '{"version":"https://jsonfeed.org/version/1.1","items":[', /not a recognised feed/],
    [
      "a broken CDATA section",
      "<rss version='2.0'><channel><item><title><![CDATA[x</title></item></channel></rss>",
      /malformed/,
    ],
  ])("rejects %s with a FeedParseError", (_label, body, message) => {
    expect(() => parseFeedDocument(body, "https://x.example/")).toThrow(FeedParseError);
    expect(() => parseFeedDocument(body, "https://x.example/")).toThrow(message);
  });
});
