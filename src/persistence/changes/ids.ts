import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** A new opaque id in the house style (`usr_…`, `team_…`): a prefix and 14 random base-36 characters (72 bits). */
export function newId(prefix: string): string {
  let out = '';
  // 252 is the largest multiple of 36 below 256: bytes above it are skipped so every character is equally likely.
  while (out.length < 14) {
    for (const byte of randomBytes(16)) {
      if (byte < 252 && out.length < 14) out += ALPHABET[byte % 36];
    }
  }
  return `${prefix}_${out}`;
}
