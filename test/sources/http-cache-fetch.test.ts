import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeBody, FetchError, fetchWithCache } from "../../src/sources/http-cache-fetch.ts";
import { startEndlessHttpServer } from "../servers/endless-http-server.ts";
import {
  LOOPBACK_SOURCES,
  type StaticHttpServer,
  startStaticHttpServer,
} from "../servers/static-http-server.ts";

describe("fetchWithCache", () => {
  let server: StaticHttpServer;
  beforeAll(async () => {
    server = await startStaticHttpServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  async function failure(promise: Promise<unknown>): Promise<FetchError> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(FetchError);
    return error as FetchError;
  }

  it("returns the body and validators, then sends them back and reports 304", async () => {
    server.route("/a.xml", {
      body: "<rss/>",
      contentType: "application/rss+xml",
      etag: '"v1"',
      lastModified: "Mon, 02 Jun 2025 10:00:00 GMT",
    });
    const first = await fetchWithCache(fetch, `${server.url}/a.xml`, {
      network: LOOPBACK_SOURCES,
      headers: { "User-Agent": "test-agent" },
    });
    expect(first).toEqual({
      status: "ok",
      body: "<rss/>",
      etag: '"v1"',
      lastModified: "Mon, 02 Jun 2025 10:00:00 GMT",
      contentType: "application/rss+xml",
    });
    const second = await fetchWithCache(fetch, `${server.url}/a.xml`, {
      network: LOOPBACK_SOURCES,
      etag: first.status === "ok" ? first.etag : undefined,
      lastModified: first.status === "ok" ? first.lastModified : undefined,
    });
    expect(second).toEqual({ status: "not-modified" });
    const [firstRequest, secondRequest] = server.requestsTo("/a.xml");
    expect(firstRequest?.headers["user-agent"]).toBe("test-agent");
    expect(firstRequest?.headers["if-none-match"]).toBeUndefined();
    expect(secondRequest?.headers["if-none-match"]).toBe('"v1"');
    expect(secondRequest?.headers["if-modified-since"]).toBe("Mon, 02 Jun 2025 10:00:00 GMT");
  });

  it("honours Last-Modified alone", async () => {
    server.route("/lm.xml", { body: "<rss/>", lastModified: "Tue, 03 Jun 2025 08:00:00 GMT" });
    const result = await fetchWithCache(fetch, `${server.url}/lm.xml`, {
      network: LOOPBACK_SOURCES,
      lastModified: "Tue, 03 Jun 2025 08:00:00 GMT",
    });
    expect(result.status).toBe("not-modified");
  });

  it("throws a typed error for a non-2xx status", async () => {
    server.route("/broken", { status: 500, body: "oops" });
    const error = await failure(fetchWithCache(fetch, `${server.url}/broken`, { network: LOOPBACK_SOURCES }));
    expect(error.code).toBe("http-status");
    expect(error.status).toBe(500);
    expect(error.message).toContain("HTTP 500");
    const missing = await failure(
      fetchWithCache(fetch, `${server.url}/nothing-here`, { network: LOOPBACK_SOURCES }),
    );
    expect(missing.status).toBe(404);
  });

  it("gives up on a server that never answers", async () => {
    server.route("/hang", { hang: true });
    const error = await failure(
      fetchWithCache(fetch, `${server.url}/hang`, {
        network: LOOPBACK_SOURCES,
        timeoutMs: 300,
      }),
    );
    expect(error.code).toBe("timeout");
    expect(error.message).toContain("within 300 ms");
  });

  it("times out even when the injected fetch ignores the abort signal", async () => {
    const deaf: typeof fetch = () => new Promise<Response>(() => {});
    const error = await failure(
      fetchWithCache(deaf, "http://127.0.0.1:9/x", {
        network: LOOPBACK_SOURCES,
        timeoutMs: 100,
      }),
    );
    expect(error.code).toBe("timeout");
  });

  it("refuses a body over the limit, by Content-Length", async () => {
    server.route("/big", { body: "x".repeat(2048) });
    const error = await failure(
      fetchWithCache(fetch, `${server.url}/big`, {
        network: LOOPBACK_SOURCES,
        maxBytes: 1024,
      }),
    );
    expect(error.code).toBe("too-large");
    expect(error.message).toContain("1 KB limit");
  });

  it("stops reading an endless body once past the limit", async () => {
    const endless = await startEndlessHttpServer();
    try {
      const error = await failure(
        fetchWithCache(fetch, `${endless.url}/feed`, {
          network: LOOPBACK_SOURCES,
          maxBytes: 1024 * 1024,
        }),
      );
      expect(error.code).toBe("too-large");
      await endless.clientGone;
      expect(endless.bytesWritten()).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await endless.close();
    }
  });

  it("reports a refused connection as a network error", async () => {
    const closed = await startStaticHttpServer();
    const url = closed.url;
    await closed.close();
    const error = await failure(fetchWithCache(fetch, `${url}/x`, { network: LOOPBACK_SOURCES }));
    expect(error.code).toBe("network");
    expect(error.message).toContain(url);
  });

  it("decodes the charset named by Content-Type", async () => {
    const latin2 = new Uint8Array([0x5a, 0x41, 0xaf, 0xd3, 0xa3, 0xc6]); // "ZAŻÓŁĆ" in ISO-8859-2
    server.route("/latin2", { body: latin2, contentType: "application/rss+xml; charset=ISO-8859-2" });
    const result = await fetchWithCache(fetch, `${server.url}/latin2`, { network: LOOPBACK_SOURCES });
    expect(result.status === "ok" && result.body).toBe("ZAŻÓŁĆ");
  });
});

describe("decodeBody", () => {
  const bytes = (...values: number[]) => new Uint8Array(values);
  const ascii = (text: string) => Array.from(text, (char) => char.charCodeAt(0));

  it("uses the XML declaration when the header names no charset, with real cp1252 for 0x80-0x9F", () => {
    const document = bytes(
      ...ascii('<?xml version="1.0" encoding="windows-1252"?><t>'),
      0x80,
      0x93,
      0x94,
      ...ascii("</t>"),
    );
    expect(decodeBody(document, "text/xml")).toBe('<?xml version="1.0" encoding="windows-1252"?><t>€“”</t>');
  });

  it("lets the header win over the declaration, and a BOM win over both", () => {
    const document = bytes(...ascii('<?xml version="1.0" encoding="iso-8859-2"?>'), 0xb1);
    expect(decodeBody(document, "text/xml; charset=iso-8859-1").endsWith("±")).toBe(true);
    expect(decodeBody(document).endsWith("ą")).toBe(true);
    expect(decodeBody(bytes(0xef, 0xbb, 0xbf, 0xc3, 0xa9), "text/xml; charset=iso-8859-2")).toBe("é");
  });

  it("falls back to UTF-8 for unknown charsets", () => {
    expect(decodeBody(bytes(0xc3, 0xa9), "text/xml; charset=x-klingon")).toBe("é");
  });
});
