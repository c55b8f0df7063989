import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveLocation } from "../../../src/sources/weather/geocoding.ts";
import { type OpenMeteoServer, startOpenMeteoServer } from "../../servers/open-meteo-server.ts";

describe("resolveLocation", () => {
  let meteo: OpenMeteoServer;
  beforeAll(async () => {
    meteo = await startOpenMeteoServer();
  });
  afterAll(async () => {
    await meteo?.close();
  });

  it("picks a clear winner by population", async () => {
    const result = await resolveLocation(fetch, meteo.url, "Lisbon");
    expect(result).toMatchObject({
      kind: "found",
      place: {
        name: "Lisbon",
        country: "Portugal",
        latitude: 38.71667,
        longitude: -9.13333,
        label: "Lisbon, Portugal",
      },
    });
    const request = meteo.requests.at(-1);
    expect(request?.path).toBe("/v1/search");
    expect(request?.query.get("name")).toBe("Lisbon");
    expect(request?.query.get("count")).toBe("5");
  });

  it("reports similar-sized places in different regions as ambiguous", async () => {
    const result = await resolveLocation(fetch, meteo.url, "Springfield");
    expect(result.kind).toBe("ambiguous");
    if (result.kind !== "ambiguous") return;
    expect(result.candidates.map((place) => place.label)).toEqual([
      "Springfield, Missouri, United States",
      "Springfield, Massachusetts, United States",
      "Springfield, Illinois, United States",
      "Springfield, Ohio, United States",
      "Springfield, Oregon, United States",
    ]);
  });

  it("narrows with qualifiers after commas: region, country or country code", async () => {
    expect(await resolveLocation(fetch, meteo.url, "Springfield, Illinois")).toMatchObject({
      kind: "found",
      place: { admin1: "Illinois", latitude: 39.80172 },
    });
    expect(await resolveLocation(fetch, meteo.url, "Lisbon, Ohio, US")).toMatchObject({
      kind: "found",
      place: { label: "Lisbon, Ohio, United States" },
    });
    expect(await resolveLocation(fetch, meteo.url, "London, Canada")).toMatchObject({
      kind: "found",
      place: { admin1: "Ontario" },
    });
    expect(await resolveLocation(fetch, meteo.url, "Lisbon, Spain")).toEqual({ kind: "not-found" });
  });

  it("returns not-found for unknown names and throws for a failing service", async () => {
    expect(await resolveLocation(fetch, meteo.url, "Atlantis")).toEqual({ kind: "not-found" });
    expect(await resolveLocation(fetch, meteo.url, " , ")).toEqual({ kind: "not-found" });
    meteo.failWith(500);
    try {
      await expect(resolveLocation(fetch, meteo.url, "Lisbon")).rejects.toThrow(/HTTP 500/);
      meteo.failWith("garbage");
      await expect(resolveLocation(fetch, meteo.url, "Lisbon")).rejects.toThrow(/not JSON/);
    } finally {
      meteo.recover();
    }
  });
});
