import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Token format: a prefix naming the kind (`plat_` for API tokens, `scim_` for SCIM tokens, `otlp_` for OTLP
 * senders' tokens) + 30 base62
 * characters of randomness (~178 bits) + 6 base62 characters of a CRC32 checksum of the random part. The
 * checksum lets us reject typos and random garbage without a database lookup, and lets secret scanners
 * recognise leaked tokens by their prefix.
 */
export const TOKEN_PREFIX = 'plat_';
export const SCIM_TOKEN_PREFIX = 'scim_';
export const OTLP_TOKEN_PREFIX = 'otlp_';
/** A one-time sign-in link's token (`npm run tokens -- login-link`). */
export const LOGIN_LINK_PREFIX = 'login_';
export type TokenPrefix = typeof TOKEN_PREFIX | typeof SCIM_TOKEN_PREFIX | typeof OTLP_TOKEN_PREFIX | typeof LOGIN_LINK_PREFIX;
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const patternFor = (prefix: TokenPrefix) => new RegExp(`^${prefix}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);
const PATTERNS = {
  [TOKEN_PREFIX]: patternFor(TOKEN_PREFIX),
  [SCIM_TOKEN_PREFIX]: patternFor(SCIM_TOKEN_PREFIX),
  [OTLP_TOKEN_PREFIX]: patternFor(OTLP_TOKEN_PREFIX),
  [LOGIN_LINK_PREFIX]: patternFor(LOGIN_LINK_PREFIX),
};

function base62(value: number, width: number): string {
  let out = '';
  let n = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function checksum(randomPart: string): string {
  return base62(crc32(randomPart), CHECKSUM_LENGTH);
}

export function generateToken(prefix: TokenPrefix = TOKEN_PREFIX): string {
  // Rejection sampling keeps every character uniformly distributed over the alphabet.
  let random = '';
  while (random.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(RANDOM_LENGTH * 2)) {
      if (byte < 248 && random.length < RANDOM_LENGTH) random += ALPHABET[byte % 62];
    }
  }
  return `${prefix}${random}${checksum(random)}`;
}

/** True when the token has the shape of its kind and its checksum matches; compared in constant time. */
export function isWellFormedToken(token: string, prefix: TokenPrefix = TOKEN_PREFIX): boolean {
  if (!PATTERNS[prefix].test(token)) return false;
  const random = token.slice(prefix.length, prefix.length + RANDOM_LENGTH);
  const given = Buffer.from(token.slice(-CHECKSUM_LENGTH));
  return timingSafeEqual(given, Buffer.from(checksum(random)));
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Enough to recognise a token in a list, far too little to use it. */
export function tokenPreview(token: string): string {
  // Every prefix has five characters.
  return `${token.slice(0, TOKEN_PREFIX.length + 4)}…${token.slice(-4)}`;
}
