import { Op } from 'sequelize';
import { AuthRecordKind, AuthSession } from '../../db/models';
import { z } from 'zod';
import type { RedisClient } from '../redis';

/**
 * Where browser sessions and sign-ins under way live (docs/settings.md): Redis when it is configured, so every instance
 * sees one at once and expired ones vanish by themselves; else the database. Records are addressed by the SHA-256 of
 * their cookie value, never the value itself.
 */
export interface AuthStore {
  put(kind: AuthRecordKind, idHash: string, record: StoredRecord): Promise<void>;
  get(kind: AuthRecordKind, idHash: string, now: Date): Promise<StoredRecord | undefined>;
  /** Reads and deletes in one step: of two concurrent takes, one gets the record. */
  take(kind: AuthRecordKind, idHash: string, now: Date): Promise<StoredRecord | undefined>;
  delete(kind: AuthRecordKind, idHash: string): Promise<void>;
  /** Ends every session of a user; resolves to how many there were. */
  deleteForUser(userId: string): Promise<number>;
  /** Forgets what has expired (Redis does it by itself). */
  prune(now: Date): Promise<void>;
}

export interface StoredRecord {
  userId: string | null;
  /** The record's JSON. */
  data: string;
  createdAt: Date;
  expiresAt: Date;
}

export class DatabaseAuthStore implements AuthStore {
  async put(kind: AuthRecordKind, idHash: string, r: StoredRecord): Promise<void> {
    await AuthSession.upsert({ id_hash: idHash, kind, user_id: r.userId, data: r.data, created_at: r.createdAt, expires_at: r.expiresAt });
  }

  async get(kind: AuthRecordKind, idHash: string, now: Date): Promise<StoredRecord | undefined> {
    // The primary: a session just started, refreshed or ended must be seen so by the next request.
    const row = await AuthSession.findOne({ where: { id_hash: idHash, kind, expires_at: { [Op.gt]: now } }, useMaster: true });
    return row ? { userId: row.user_id, data: row.data, createdAt: row.created_at, expiresAt: row.expires_at } : undefined;
  }

  async take(kind: AuthRecordKind, idHash: string, now: Date): Promise<StoredRecord | undefined> {
    const record = await this.get(kind, idHash, now);
    if (!record) return undefined;
    const deleted = await AuthSession.destroy({ where: { id_hash: idHash, kind } });
    return deleted === 1 ? record : undefined;
  }

  async delete(kind: AuthRecordKind, idHash: string): Promise<void> {
    await AuthSession.destroy({ where: { id_hash: idHash, kind } });
  }

  deleteForUser(userId: string): Promise<number> {
    return AuthSession.destroy({ where: { user_id: userId, kind: 'session' } });
  }

  /** A range of the expires_at index; run at each sign-in, so the table holds about the live sessions only. */
  async prune(now: Date): Promise<void> {
    await AuthSession.destroy({ where: { expires_at: { [Op.lte]: now } } });
  }
}

/** A record as kept in Redis (its times in epoch milliseconds). */
const redisRecord = z.object({ userId: z.string().nullable(), data: z.string(), createdAt: z.number(), expiresAt: z.number() });
type RedisRecord = z.infer<typeof redisRecord>;

export class RedisAuthStore implements AuthStore {
  constructor(private readonly redis: RedisClient, private readonly prefix: string) {}

  private key(kind: AuthRecordKind, idHash: string): string {
    return `${this.prefix}:auth:${kind}:${idHash}`;
  }

  private userKey(userId: string): string {
    return `${this.prefix}:auth:user:${userId}`;
  }

  async put(kind: AuthRecordKind, idHash: string, r: StoredRecord): Promise<void> {
    const ttl = Math.max(1, r.expiresAt.getTime() - Date.now());
    const value: RedisRecord = { userId: r.userId, data: r.data, createdAt: r.createdAt.getTime(), expiresAt: r.expiresAt.getTime() };
    const multi = this.redis.multi().set(this.key(kind, idHash), JSON.stringify(value), { PX: ttl });
    if (r.userId && kind === 'session') {
      // The user's set outlives each session it names; a name whose session expired is skipped when it is read.
      multi.sAdd(this.userKey(r.userId), idHash).pExpire(this.userKey(r.userId), ttl, 'GT');
      multi.pExpire(this.userKey(r.userId), ttl, 'NX');
    }
    await multi.exec();
  }

  async get(kind: AuthRecordKind, idHash: string, now: Date): Promise<StoredRecord | undefined> {
    return this.parse(await this.redis.get(this.key(kind, idHash)), now);
  }

  async take(kind: AuthRecordKind, idHash: string, now: Date): Promise<StoredRecord | undefined> {
    return this.parse(await this.redis.getDel(this.key(kind, idHash)), now);
  }

  async delete(kind: AuthRecordKind, idHash: string): Promise<void> {
    await this.redis.del(this.key(kind, idHash));
  }

  async deleteForUser(userId: string): Promise<number> {
    const hashes = await this.redis.sMembers(this.userKey(userId));
    if (hashes.length === 0) return 0;
    const deleted = await this.redis.del(hashes.map((h) => this.key('session', h)));
    await this.redis.sRem(this.userKey(userId), hashes);
    return Number(deleted);
  }

  async prune(): Promise<void> {
    // Every key has its expiry: Redis forgets them itself.
  }

  private parse(text: string | null, now: Date): StoredRecord | undefined {
    if (!text) return undefined;
    // A record this version cannot read (another version's, a damaged one) is no record: its holder signs in again.
    const parsed = redisRecord.safeParse(parsedJson(text));
    if (!parsed.success) return undefined;
    const r = parsed.data;
    if (r.expiresAt <= now.getTime()) return undefined;
    return { userId: r.userId, data: r.data, createdAt: new Date(r.createdAt), expiresAt: new Date(r.expiresAt) };
  }
}

/** The JSON a record holds; undefined for text that is none. */
export function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
