/**
 * An undici dispatcher that checks every address it connects to, after DNS resolution and on every
 * redirect hop. The check sits in the connection itself: the resolver hook vets the addresses and hands
 * exactly those to the socket, so there is no window between "checked" and "connected" for a DNS
 * answer to change in (the DNS-rebinding trick). IP literals skip the resolver in Node, so the connector
 * checks them before dialling.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector } from "undici";
import { createAddressGuard, type NetworkPolicy, RefusedAddressError } from "./address-policy.ts";

export function createGuardedAgent(policy: NetworkPolicy): Agent {
  const guard = createAddressGuard(policy);

  const lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      for (const { address } of addresses) {
        const reason = guard.refusal(hostname, address);
        if (reason) return callback(new RefusedAddressError(hostname, address, reason), "", 0);
      }
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname}: no addresses`), "", 0);
      // net asks for every address when it races IPv4 and IPv6 (autoSelectFamily), else for one.
      if (options.all) return callback(null, addresses);
      return callback(null, first.address, first.family);
    });
  };

  const connectChecked = buildConnector({ lookup });
  return new Agent({
    connect(options, callback) {
      const host = options.hostname.replace(/^\[|\]$/g, "");
      if (isIP(host) !== 0) {
        const reason = guard.refusal(host, host);
        if (reason) return callback(new RefusedAddressError(host, host, reason), null);
      }
      return connectChecked(options, callback);
    },
  });
}
