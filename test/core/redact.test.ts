import { describe, expect, it } from "vitest";
import { redactAddress, redactAddressesIn } from "../../src/core/redact.ts";

describe("redacting subscription addresses", () => {
  it("keeps scheme, host and the first characters of the path of each provider's secret address", () => {
    expect(
      redactAddress("https://calendar.google.com/calendar/ical/ann%40gmail.com/private-5f2c9e/basic.ics"),
    ).toBe("https://calendar.google.com/calenda…");
    expect(
      redactAddress("https://outlook.office365.com/owa/calendar/0a1b2c@contoso.com/9f8e7d6c/calendar.ics"),
    ).toBe("https://outlook.office365.com/owa/cal…");
    expect(redactAddress("webcal://p42-caldav.icloud.com/published/2/MTIzNDU2Nzg5")).toBe(
      "webcal://p42-caldav.icloud.com/publish…",
    );
  });

  it("drops credentials, query strings and fragments, and marks that something was hidden", () => {
    expect(redactAddress("https://ann:hunter2@feeds.example.com/a?token=s3cret#x")).toBe(
      "https://feeds.example.com/a…",
    );
    expect(redactAddress("https://example.com/")).toBe("https://example.com/");
  });

  it("leaves local files and non-addresses alone", () => {
    expect(redactAddress("/home/ann/calendar.ics")).toBe("/home/ann/calendar.ics");
    expect(redactAddress("not an address")).toBe("not an address");
  });

  it("redacts every address inside a message, keeping the sentence around it", () => {
    expect(
      redactAddressesIn(
        "https://calendar.google.com/calendar/ical/x/private-abc/basic.ics: server answered HTTP 404. Retry https://a.example/secret-token.",
      ),
    ).toBe(
      "https://calendar.google.com/calenda…: server answered HTTP 404. Retry https://a.example/secret-….",
    );
  });
});
