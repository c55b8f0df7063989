import { describe, expect, it } from "vitest";
import {
  allowHostProblem,
  classifyAddress,
  createAddressGuard,
  PUBLIC_ONLY,
} from "../../../src/sources/network/address-policy.ts";

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["127.255.0.9", "a loopback address"],
    ["::1", "a loopback address"],
    ["[::1]", "a loopback address"],
    ["::ffff:127.0.0.1", "a loopback address"],
    ["0.0.0.0", "an unspecified address"],
    ["::", "an unspecified address"],
    ["10.1.2.3", "a private address"],
    ["172.16.0.1", "a private address"],
    ["172.31.255.255", "a private address"],
    ["192.168.1.10", "a private address"],
    ["fd12:3456::1", "a private address"],
    ["169.254.10.20", "a link-local address"],
    ["fe80::1", "a link-local address"],
    ["100.64.0.1", "a carrier-grade NAT address"],
    ["169.254.169.254", "a cloud metadata address"],
    ["fd00:ec2::254", "a cloud metadata address"],
    ["100.100.100.200", "a cloud metadata address"],
    ["64:ff9b::7f00:1", "a loopback address"],
    ["64:ff9b::169.254.169.254", "a cloud metadata address"],
    ["224.0.0.1", "a reserved address"],
    ["255.255.255.255", "a reserved address"],
  ])("%s is %s", (address, description) => {
    expect(classifyAddress(address)?.description).toBe(description);
  });

  it.each([
    "93.184.215.14",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700::6810:84e5",
    "64:ff9b::5db8:d70e",
    "8.8.8.8",
  ])("%s is public", (address) => {
    expect(classifyAddress(address)).toBeUndefined();
  });
});

describe("createAddressGuard", () => {
  it("refuses every non-public class by default, naming the address, its class and the setting", () => {
    const guard = createAddressGuard(PUBLIC_ONLY);
    expect(guard.refusal("127.0.0.1", "127.0.0.1")).toBe(
      "127.0.0.1 is a loopback address (allow it with sources.allow_private_networks or sources.allow_hosts in BRIEFBOT_CONFIG)",
    );
    expect(guard.refusal("Intranet.Example.", "10.0.0.5")).toBe(
      "intranet.example resolves to 10.0.0.5, which is a private address (allow it with sources.allow_private_networks or sources.allow_hosts in BRIEFBOT_CONFIG)",
    );
    expect(guard.refusal("93.184.215.14", "93.184.215.14")).toBeUndefined();
    expect(guard.refusal("example.com", "93.184.215.14")).toBeUndefined();
  });

  it("allow_private_networks opens the LAN and loopback but not the metadata service", () => {
    const guard = createAddressGuard({ allowPrivateNetworks: true, allowHosts: [] });
    expect(guard.refusal("calendar.lan", "192.168.1.10")).toBeUndefined();
    expect(guard.refusal("127.0.0.1", "127.0.0.1")).toBeUndefined();
    expect(guard.refusal("169.254.169.254", "169.254.169.254")).toBe(
      "169.254.169.254 is a cloud metadata address (allow it with sources.allow_hosts in BRIEFBOT_CONFIG)",
    );
  });

  it("allow_hosts opens exactly the names, addresses and ranges it lists", () => {
    const guard = createAddressGuard({
      allowPrivateNetworks: false,
      allowHosts: ["Calendar.LAN", "127.0.0.2", "10.20.0.0/16", "169.254.169.254"],
    });
    expect(guard.hostAllowed("calendar.lan.")).toBe(true);
    expect(guard.refusal("calendar.lan", "10.9.9.9")).toBeUndefined();
    expect(guard.refusal("other.lan", "10.9.9.9")).toMatch(/private address/);
    expect(guard.refusal("127.0.0.2", "127.0.0.2")).toBeUndefined();
    expect(guard.refusal("127.0.0.1", "127.0.0.1")).toMatch(/loopback/);
    expect(guard.refusal("files.lan", "10.20.3.4")).toBeUndefined();
    expect(guard.refusal("files.lan", "10.21.3.4")).toMatch(/private address/);
    expect(guard.refusal("169.254.169.254", "169.254.169.254")).toBeUndefined();
  });
});

describe("allowHostProblem", () => {
  it.each(["calendar.lan", "feeds.example.com.", "10.0.0.5", "10.0.0.0/8", "fd00::/8", "::1", "localhost"])(
    "accepts %s",
    (entry) => {
      expect(allowHostProblem(entry)).toBeUndefined();
    },
  );

  it.each([
    ["http://calendar.lan/", "is not a host name"],
    ["calendar.lan:8080", "is not a host name"],
    ["", "is not a host name"],
    ["-bad-.lan", "is not a host name"],
    ["10.0.0.0/33", "bad prefix length"],
    ["fd00::/129", "bad prefix length"],
    ["10.0.0.0/8/8", "bad prefix length"],
  ])("refuses %s", (entry, problem) => {
    expect(allowHostProblem(entry)).toContain(problem);
  });
});
