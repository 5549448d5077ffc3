import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config';
import { SECRETS_KEY_FILE, SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';

/** Secrets at rest (docs/architecture.md#writers): sealed with SECRETS_KEY, a key file on the embedded default, nothing in clear. */

const box = () => new SecretBox(randomBytes(32));

test('a sealed secret opens with its key, looks nothing like the secret, and differs every time', () => {
  const b = box();
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const sealed = b.seal(secret);
  expect(sealed).toMatch(/^v1\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
  expect(sealed).not.toContain(secret);
  expect(b.seal(secret)).not.toBe(sealed);
  expect(b.open(sealed)).toBe(secret);
});

test('another key, a changed byte or a non-sealed value does not open', () => {
  const sealed = box().seal('secret');
  expect(() => box().open(sealed)).toThrow(/not the key it was sealed with/);
  const b = new SecretBox(Buffer.alloc(32, 7));
  const mine = b.seal('secret');
  const parts = mine.split('.');
  const flipped = Buffer.from(parts[3], 'base64url');
  flipped[0] ^= 1;
  expect(() => b.open([...parts.slice(0, 3), flipped.toString('base64url')].join('.'))).toThrow(/could not be opened/);
  expect(() => b.open('secret')).toThrow(/Not a sealed secret/);
});

describe('the key', () => {
  test('SECRETS_KEY is 64 hex characters or base64 of 32 bytes; anything else stops the process, unechoed', () => {
    const hex = randomBytes(32).toString('hex');
    expect(loadConfig({ SECRETS_KEY: hex }).SECRETS_KEY).toEqual(Buffer.from(hex, 'hex'));
    const b64 = randomBytes(32).toString('base64');
    expect(loadConfig({ SECRETS_KEY: b64 }).SECRETS_KEY).toEqual(Buffer.from(b64, 'base64'));
    for (const bad of ['short', randomBytes(16).toString('hex'), `${hex}00`, 'z'.repeat(64)]) {
      let message = '';
      try {
        loadConfig({ SECRETS_KEY: bad });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/SECRETS_KEY must be 32 bytes/);
      expect(message).not.toContain(bad);
    }
  });

  test('on the embedded default without SECRETS_KEY a key file is made once, owner-only, and reused', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-'));
    try {
      const config = { SQLITE_PATH: path.join(dir, 'data', 'platform.sqlite') };
      const key = secretsKeyFor(config);
      const file = path.join(dir, 'data', SECRETS_KEY_FILE);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(secretsKeyFor(config)).toEqual(key);
      fs.writeFileSync(file, 'garbage');
      expect(() => secretsKeyFor(config)).toThrow(/does not hold a secrets key/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('with MySQL the key must be given (instances share it); a given key wins everywhere', () => {
    expect(() => secretsKeyFor({ DATABASE_URL: 'mysql://db/x', SQLITE_PATH: 'unused' })).toThrow(/SECRETS_KEY is required with DATABASE_URL/);
    const key = randomBytes(32);
    expect(secretsKeyFor({ SECRETS_KEY: key, DATABASE_URL: 'mysql://db/x', SQLITE_PATH: 'unused' })).toBe(key);
  });
});
