/**
 * Which addresses a subscription fetch may connect to. Calendar and feed addresses come from users and
 * from whatever the server they name redirects to, so by default nothing outside the public internet
 * is reachable: not this machine, not the LAN, not the cloud's metadata service. The operator opens what
 * they need in BRIEFBOT_CONFIG (`sources.allow_private_networks`, `sources.allow_hosts`).
 */
import { BlockList, isIP } from "node:net";
import { BriefbotError } from "../../core/errors.ts";

export interface NetworkPolicy {
  /** Loopback, RFC 1918, ULA, link-local, CGNAT: allowed. Cloud metadata addresses still need `allowHosts`. */
  allowPrivateNetworks: boolean;
  /** Host names (exact), IP addresses and CIDR ranges that are always allowed. */
  allowHosts: readonly string[];
}

/** The default: public addresses only. */
export const PUBLIC_ONLY: NetworkPolicy = { allowPrivateNetworks: false, allowHosts: [] };

/**
 * For addresses the operator wrote in configuration (Open-Meteo), not ones users or remote servers
 * chose: no address checks at all.
 */
export const OPERATOR_CONFIGURED = "operator-configured" as const;

export type AddressPolicy = NetworkPolicy | typeof OPERATOR_CONFIGURED;

interface AddressClass {
  description: string;
  /** Allowed by `allowPrivateNetworks`; metadata endpoints are not, being a credential store. */
  privateNetwork: boolean;
  ranges: BlockList;
}

function ranges(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [network = "", prefix = ""] = entry.split("/");
    const type = isIP(network) === 6 ? "ipv6" : "ipv4";
    if (prefix === "") list.addAddress(network, type);
    else list.addSubnet(network, Number(prefix), type);
  }
  return list;
}

/** First match wins, so the metadata addresses are named as such rather than as "link-local". */
const CLASSES: AddressClass[] = [
  {
    description: "a cloud metadata address",
    privateNetwork: false,
    // AWS/GCP/Azure/OpenStack, AWS ECS task metadata, Alibaba, Oracle, AWS over IPv6.
    ranges: ranges(["169.254.169.254", "169.254.170.2", "100.100.100.200", "192.0.0.192", "fd00:ec2::254"]),
  },
  { description: "a loopback address", privateNetwork: true, ranges: ranges(["127.0.0.0/8", "::1/128"]) },
  { description: "an unspecified address", privateNetwork: true, ranges: ranges(["0.0.0.0/8", "::/128"]) },
  {
    description: "a private address",
    privateNetwork: true,
    ranges: ranges(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]),
  },
  {
    description: "a link-local address",
    privateNetwork: true,
    ranges: ranges(["169.254.0.0/16", "fe80::/10"]),
  },
  { description: "a carrier-grade NAT address", privateNetwork: true, ranges: ranges(["100.64.0.0/10"]) },
  {
    description: "a reserved address",
    privateNetwork: true,
    ranges: ranges(["192.0.0.0/24", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4", "fec0::/10", "ff00::/8"]),
  },
];

/** IPv6 addresses that carry an IPv4 one: NAT64 (RFC 6052) is read as the address it reaches. */
function embeddedIpv4(address: string): string | undefined {
  const match = address.toLowerCase().match(/^64:ff9b::(?:([0-9.]+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/);
  if (!match) return undefined;
  if (match[1]) return isIP(match[1]) === 4 ? match[1] : undefined;
  const high = Number.parseInt(match[2] ?? "0", 16);
  const low = Number.parseInt(match[3] ?? "0", 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

/** What kind of non-public address this is, or undefined for a public one. */
export function classifyAddress(address: string): AddressClass | undefined {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 0) return undefined;
  const nat64 = family === 6 ? embeddedIpv4(bare) : undefined;
  if (nat64) return classifyAddress(nat64);
  const type = family === 6 ? "ipv6" : "ipv4";
  return CLASSES.find((entry) => entry.ranges.check(bare, type));
}

/** Host names compare case-insensitively and without a trailing dot. */
export function normalizeHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
}

/** Parses `allowHosts` once into a name set and a range list. */
function allowList(policy: NetworkPolicy): { names: Set<string>; addresses: BlockList } {
  const names = new Set<string>();
  const addresses = new BlockList();
  for (const entry of policy.allowHosts) {
    const [network = "", prefix] = entry.trim().split("/");
    const family = isIP(network);
    if (family === 0) names.add(normalizeHost(entry.trim()));
    else if (prefix === undefined) addresses.addAddress(network, family === 6 ? "ipv6" : "ipv4");
    else addresses.addSubnet(network, Number(prefix), family === 6 ? "ipv6" : "ipv4");
  }
  return { names, addresses };
}

export interface AddressGuard {
  /** The host was named in `allowHosts`: any address it resolves to is fine. */
  hostAllowed(host: string): boolean;
  /** Why connecting to `address` (for `host`) is refused, or undefined when it is allowed. */
  refusal(host: string, address: string): string | undefined;
}

export function createAddressGuard(policy: NetworkPolicy): AddressGuard {
  const allowed = allowList(policy);
  const hostAllowed = (host: string) => allowed.names.has(normalizeHost(host));
  return {
    hostAllowed,
    refusal(host, address) {
      if (hostAllowed(host)) return undefined;
      const bare = address.replace(/^\[|\]$/g, "");
      const kind = classifyAddress(bare);
      if (!kind) return undefined;
      if (allowed.addresses.check(bare, isIP(bare) === 6 ? "ipv6" : "ipv4")) return undefined;
      if (kind.privateNetwork && policy.allowPrivateNetworks) return undefined;
      const where = normalizeHost(host) === bare ? bare : `${normalizeHost(host)} resolves to ${bare}, which`;
      const allow = kind.privateNetwork
        ? "sources.allow_private_networks or sources.allow_hosts"
        : "sources.allow_hosts";
      return `${where} is ${kind.description} (allow it with ${allow} in BRIEFBOT_CONFIG)`;
    },
  };
}

/** Thrown (inside the HTTP client) when a connection would reach a refused address. */
export class RefusedAddressError extends BriefbotError {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super("address_refused", reason);
  }
}

/** Why an `allow_hosts` entry is unusable, or undefined when it is a host name, IP address or CIDR range. */
export function allowHostProblem(entry: string): string | undefined {
  const trimmed = entry.trim();
  const [network = "", prefix, extra] = trimmed.split("/");
  const family = isIP(network);
  if (family !== 0) {
    if (prefix === undefined) return undefined;
    const bits = Number(prefix);
    const max = family === 6 ? 128 : 32;
    if (extra === undefined && /^\d{1,3}$/.test(prefix) && bits <= max) return undefined;
    return `"${entry}" has a bad prefix length (a CIDR range is like 10.0.0.0/8 or fd00::/8)`;
  }
  const host = trimmed.replace(/\.$/, "");
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;
  if (host !== "" && host.length <= 253 && host.split(".").every((part) => label.test(part)))
    return undefined;
  return `"${entry}" is not a host name, IP address or CIDR range (like calendar.lan, 10.0.0.5 or 10.0.0.0/8)`;
}
