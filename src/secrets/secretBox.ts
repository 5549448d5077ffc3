import fs from 'node:fs';
import path from 'node:path';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Secrets kept opened at most: more than any deployment's apps, git apps and endpoints that deliver at once. */
const OPENED_KEPT = 1_000;

/**
 * Secrets the service must present or re-compute (webhook HMAC keys, docs/architecture.md#writers) are stored sealed with
 * AES-256-GCM under `SECRETS_KEY`: `v1.<iv>.<tag>.<ciphertext>`, base64url, a fresh 96-bit IV each time. A row
 * copied from the database without the key is useless, and a changed byte fails to open.
 */
export class SecretBox {
  private resolved?: Buffer;
  private readonly opened = new Map<string, string>();

  /** The key, or how to get it on first use (a process that never seals a secret needs no key). */
  constructor(private readonly keySource: Buffer | (() => Buffer)) {
    if (Buffer.isBuffer(keySource)) this.resolved = checked(keySource);
  }

  private get key(): Buffer {
    this.resolved ??= checked((this.keySource as () => Buffer)());
    return this.resolved;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), sealed].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  /**
   * The plain secret; throws when the value was sealed under another key or changed since. Kept once opened: an
   * app's secret is opened for each of its deliveries, and a sealed value has one plain text under the key.
   */
  open(sealed: string): string {
    let plain = this.opened.get(sealed);
    if (plain === undefined) {
      plain = this.decrypt(sealed);
      if (this.opened.size >= OPENED_KEPT) this.opened.clear();
      this.opened.set(sealed, plain);
    }
    return plain;
  }

  private decrypt(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || tag === undefined || data === undefined) throw new Error('Not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('A sealed secret could not be opened: SECRETS_KEY is not the key it was sealed with, or the value was changed');
    }
  }
}

/** After a rotation the previous secret stays valid this long, while the other side's settings are updated. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/** A rotated secret as stored: the current one sealed, and the one it replaced until it expires. */
export interface RotatedSecret {
  current: string | null;
  previous: string | null;
  previousExpiresAt: Date | null;
}

/** The plain secrets valid at `now`: the current one, and the previous one during its grace. */
export function openRotated(box: SecretBox, secret: RotatedSecret, now: Date): string[] {
  const sealed = [secret.current];
  if (graceEnd(secret, now)) sealed.push(secret.previous);
  return sealed.filter((s): s is string => !!s).map((s) => box.open(s));
}

/** When the previous secret stops being accepted; null when none is accepted at `now` (never rotated, or its grace over or ended). */
function graceEnd(secret: Pick<RotatedSecret, 'previous' | 'previousExpiresAt'>, now: Date): Date | null {
  return secret.previous && secret.previousExpiresAt && secret.previousExpiresAt > now ? secret.previousExpiresAt : null;
}

/** When an app's or git app's previous webhook secret stops being accepted; null when it is not accepted at `now`. */
export function previousSecretGraceEnd(row: { previous_webhook_secret: string | null; previous_secret_expires_at: Date | null }, now: Date): Date | null {
  return graceEnd({ previous: row.previous_webhook_secret, previousExpiresAt: row.previous_secret_expires_at }, now);
}

function checked(key: Buffer): Buffer {
  if (key.length !== 32) throw new Error('A secrets key has 32 bytes');
  return key;
}

/** `SECRETS_KEY`: 32 bytes as 64 hex characters or base64; undefined for anything else. */
export function parseSecretsKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  // Standard or URL-safe base64 of 32 bytes: 43 characters and an optional '='.
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return Buffer.from(trimmed, 'base64');
  return undefined;
}

export const SECRETS_KEY_FILE = 'secrets.key';

/**
 * The key secrets are sealed with: `SECRETS_KEY` when set. On the embedded default without it, a key file beside
 * the database (`data/secrets.key`, owner-only), made on first use, so a newcomer needs no setup; with
 * MySQL/MariaDB the key must be given, since instances share the database and must share the key.
 */
export function secretsKeyFor(config: { SECRETS_KEY?: Buffer; DATABASE_URL?: string; SQLITE_PATH: string }): Buffer {
  if (config.SECRETS_KEY) return config.SECRETS_KEY;
  if (config.DATABASE_URL) {
    throw new Error('SECRETS_KEY is required with DATABASE_URL: every instance must seal and open secrets with the same key (openssl rand -hex 32)');
  }
  const file = path.join(path.dirname(path.resolve(config.SQLITE_PATH)), SECRETS_KEY_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    try {
      // `wx`: two processes starting at once must not both write a key; the second reads the first's.
      fs.writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const key = parseSecretsKey(fs.readFileSync(file, 'utf8'));
  if (!key) throw new Error(`${file} does not hold a secrets key (64 hex characters); restore it, or remove it if no secret was sealed yet`);
  return key;
}
