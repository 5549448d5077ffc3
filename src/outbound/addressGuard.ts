import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * No request forgery through the addresses this service is given (docs/operating.md#outgoing-calls): a webhook URL,
 * a vendor's base URL, a report link in a vendor's answer, an identity provider's endpoints must not make it call what
 * only it can reach, such as a database on the private network or the cloud's metadata service. Only public unicast
 * addresses pass (ipaddr.js names every special range: loopback, private, linkLocal with 169.254.169.254, uniqueLocal
 * with fd00:ec2::254, carrierGradeNat with 100.100.100.200, 6to4 and NAT64 forms that embed one of those...). Checked
 * on the address actually dialled, at each connection, so a name that later resolves elsewhere (DNS rebinding) is
 * refused too.
 */

/** The call was not made, or a redirect not followed: where it would go is refused. The message says why. */
export class RefusedDestination extends Error {
  readonly code = 'EREFUSEDDESTINATION';
}

/** Why an address is special (e.g. "loopback"), or undefined for a public one. */
export function forbiddenRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  // process() turns ::ffff:127.0.0.1 into 127.0.0.1, so a mapped address is judged as what it maps.
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? undefined : range;
}

/** Which addresses a connection may reach. */
export interface AddressRule {
  /** The operator's allowance (privateAddressesAllowed): special addresses pass too. */
  allowPrivate: boolean;
  /** Plain http with a credential or a vendor's data: only an address that is not public passes, never one across the internet. */
  privateOnly: boolean;
}

/** The host as dialled: an IP literal without brackets, or a name to resolve. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Every address the host stands for, each judged by the rule; throws RefusedDestination naming the first refused. */
export async function assertAllowedHost(host: string, rule: AddressRule, lookup = dns.promises.lookup): Promise<void> {
  if (rule.allowPrivate && !rule.privateOnly) return;
  const addresses = net.isIP(host) ? [host] : (await lookupAll(host, lookup)).map((a) => a.address);
  for (const address of addresses) refuseIfForbidden(host, address, rule);
}

/** An IP literal is dialled without a lookup, so the guarded lookup never sees it: it is checked with this. */
export function assertAllowedLiteral(host: string, rule: AddressRule): void {
  if (net.isIP(host)) refuseIfForbidden(host, host, rule);
}

function refuseIfForbidden(host: string, address: string, rule: AddressRule): void {
  const range = forbiddenRange(address);
  const what = host === address ? address : `${host} resolves to ${address}, which`;
  if (range && !rule.allowPrivate) throw new RefusedDestination(`${what} is a ${range} address; outgoing calls go only to public addresses`);
  if (!range && rule.privateOnly) throw new RefusedDestination(`${what} is a public address, called only over https://`);
}

async function lookupAll(host: string, lookup: typeof dns.promises.lookup): Promise<dns.LookupAddress[]> {
  try {
    return await lookup(host, { all: true, verbatim: true });
  } catch (err) {
    throw new RefusedDestination(`${host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
  }
}

/**
 * A `lookup` for http.request: resolves as dns.lookup does, then refuses the connection when any address of the
 * name is refused by the rule (an attacker's name could list a public address first and a private one second).
 */
export function guardedLookup(rule: AddressRule): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      try {
        for (const a of addresses) refuseIfForbidden(hostname, a.address, rule);
      } catch (refused) {
        return callback(refused as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, all: dns.LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
