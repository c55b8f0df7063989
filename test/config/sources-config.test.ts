/** The `sources` section of BRIEFBOT_CONFIG: which addresses calendar and feed fetches may reach. */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/config.ts";

function load(yaml: string) {
  return loadConfig({ BRIEFBOT_CONFIG: "/etc/briefbot.yaml" }, () => yaml);
}

function problemsOf(yaml: string): string[] {
  try {
    load(yaml);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("sources config", () => {
  it("defaults to public addresses only, with or without a config file", () => {
    const none = { allowPrivateNetworks: false, allowHosts: [] };
    expect(
      loadConfig({}, () => {
        throw new Error("not read");
      }).sources,
    ).toEqual(none);
    expect(load("sync: { feed_minutes: 10 }\n").sources).toEqual(none);
  });

  it("reads allow_private_networks and allow_hosts (names, addresses, CIDR ranges)", () => {
    expect(
      load(`sources:
  allow_private_networks: true
  allow_hosts: [calendar.lan, " 10.0.0.5 ", "10.20.0.0/16", "fd00::/8", 169.254.169.254]
`).sources,
    ).toEqual({
      allowPrivateNetworks: true,
      allowHosts: ["calendar.lan", "10.0.0.5", "10.20.0.0/16", "fd00::/8", "169.254.169.254"],
    });
  });

  it("says what is wrong with each bad entry, one line each", () => {
    expect(
      problemsOf(`sources:
  allow_private_networks: "yes"
  allow_hosts: ["http://calendar.lan/", "10.0.0.0/33", 8080]
  allow_everything: true
`),
    ).toEqual([
      "BRIEFBOT_CONFIG: sources.allow_private_networks must be true or false",
      'BRIEFBOT_CONFIG: sources.allow_hosts.0 "http://calendar.lan/" is not a host name, IP address or CIDR range (like calendar.lan, 10.0.0.5 or 10.0.0.0/8)',
      'BRIEFBOT_CONFIG: sources.allow_hosts.1 "10.0.0.0/33" has a bad prefix length (a CIDR range is like 10.0.0.0/8 or fd00::/8)',
      "BRIEFBOT_CONFIG: sources.allow_hosts.2 must be a host name, IP address or CIDR range, in quotes if need be",
      'BRIEFBOT_CONFIG: sources Unrecognized key: "allow_everything"',
    ]);
    expect(problemsOf("sources:\n  allow_hosts: calendar.lan\n")).toEqual([
      "BRIEFBOT_CONFIG: sources.allow_hosts must be a list of host names, IP addresses or CIDR ranges",
    ]);
  });
});
