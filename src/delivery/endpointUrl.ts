import { assertAllowedHost, hostOf, RefusedDestination } from '../outbound/addressGuard';

/**
 * A webhook endpoint's URL (docs/webhooks.md#no-request-forgery): http(s) with a host, no credentials (they would show
 * in listings and logs), no fragment. Plain http is the receiver's choice: the body is signed, and carries no secret.
 * Throws RefusedDestination with what to fix.
 */
export function parseEndpointUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedDestination(`'${text}' is not a URL; give an absolute http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedDestination(`only http:// and https:// URLs receive webhooks, not ${url.protocol}//`);
  if (url.username || url.password) throw new RefusedDestination('the URL must not hold credentials; verify deliveries by their signature instead');
  if (url.hash) throw new RefusedDestination('the URL must not have a #fragment');
  // WHATWG URL has already normalised odd IPv4 forms (http://2130706433/, http://0x7f.1/) to dotted quads.
  return url;
}

/** The check endpoint URLs get when they are subscribed: the form, then every address the host resolves to. */
export function checkEndpointUrl(allowPrivate: boolean): (url: string) => Promise<void> {
  return async (url) => {
    await assertAllowedHost(hostOf(parseEndpointUrl(url)), { allowPrivate, privateOnly: false });
  };
}
