import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * No request forgery through webhook URLs (docs/webhooks.md): a customer's URL must not make this service call what
 * only it can reach, such as a database on the private network or the cloud's metadata service. Only public
 * unicast addresses pass (ipaddr.js names every special range: loopback, private, linkLocal with
 * 169.254.169.254, uniqueLocal with fd00:ec2::254, carrierGradeNat with 100.100.100.200, 6to4 and NAT64 forms
 * that embed one of those...). Checked when an endpoint is created and again at each connection, on the
 * address actually dialled, so a name that later resolves elsewhere (DNS rebinding) is refused too.
 */
export class ForbiddenAddressError extends Error {
  readonly code = 'EFORBIDDENADDRESS';
}

/** Why an address must not be called (e.g. "loopback"), or undefined for a public one. */
export function forbiddenRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  // process() turns ::ffff:127.0.0.1 into 127.0.0.1, so a mapped address is judged as what it maps.
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? undefined : range;
}

export interface UrlCheck {
  url: URL;
  /** The host as dialled: an IP literal without brackets, or a name to resolve. */
  host: string;
}

/** The URL's form: http(s) with a host, no credentials (they would show in listings and logs). Throws with what to fix. */
export function parseEndpointUrl(text: string): UrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ForbiddenAddressError(`'${text}' is not a URL; give an absolute http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ForbiddenAddressError(`only http:// and https:// URLs receive webhooks, not ${url.protocol}//`);
  if (url.username || url.password) throw new ForbiddenAddressError('the URL must not hold credentials; verify deliveries by their signature instead');
  if (url.hash) throw new ForbiddenAddressError('the URL must not have a #fragment');
  // WHATWG URL has already normalised odd IPv4 forms (http://2130706433/, http://0x7f.1/) to dotted quads.
  return { url, host: url.hostname.replace(/^\[(.*)\]$/, '$1') };
}

/** Every address the host stands for, each refused unless public; throws ForbiddenAddressError naming the first that is not. */
export async function assertPublicHost(host: string, allowPrivate: boolean, lookup = dns.promises.lookup): Promise<void> {
  if (allowPrivate) return;
  const addresses = net.isIP(host) ? [host] : (await lookupAll(host, lookup)).map((a) => a.address);
  for (const address of addresses) refuseIfForbidden(host, address);
}

/** An IP literal is dialled without a lookup, so the guarded lookup never sees it: it is checked with this. */
export function assertPublicLiteral(host: string, allowPrivate: boolean): void {
  if (!allowPrivate && net.isIP(host)) refuseIfForbidden(host, host);
}

function refuseIfForbidden(host: string, address: string): void {
  const range = forbiddenRange(address);
  if (range) {
    const what = host === address ? address : `${host} resolves to ${address}, which`;
    throw new ForbiddenAddressError(`${what} is a ${range} address; webhooks go only to public addresses`);
  }
}

async function lookupAll(host: string, lookup: typeof dns.promises.lookup): Promise<dns.LookupAddress[]> {
  try {
    return await lookup(host, { all: true, verbatim: true });
  } catch (err) {
    throw new ForbiddenAddressError(`${host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
  }
}

/**
 * A `lookup` for http.request: resolves as dns.lookup does, then refuses the connection when any address of the
 * name is not public (an attacker's name could list a public address first and a private one second).
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      try {
        if (!allowPrivate) for (const a of addresses) refuseIfForbidden(hostname, a.address);
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

/** The check endpoint URLs get when they are subscribed: the form, then every address the host resolves to. */
export function checkEndpointUrl(allowPrivate: boolean): (url: string) => Promise<void> {
  return async (url) => {
    const { host } = parseEndpointUrl(url);
    await assertPublicHost(host, allowPrivate);
  };
}
