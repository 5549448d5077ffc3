import { Model, ModelStatic, Op } from 'sequelize';

/** What each kind of token (API, SCIM, OTLP) has for this: its id and when it was last used. */
type TokenModel = ModelStatic<Model<{ id: string; last_used_at: Date | null }>>;

/**
 * Records that a token was used without a write per request: at most one conditional UPDATE of `last_used_at`
 * per token and interval, across instances (the condition skips a row another instance wrote already).
 */
export class LastUsedRecorder {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly model: TokenModel,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  record(tokenId: string, now: Date): void {
    if (now.getTime() - (this.written.get(tokenId) ?? 0) < this.intervalMs) return;
    if (this.written.size >= 10_000) {
      // Entries older than the interval no longer suppress a write; dropping them changes nothing.
      for (const [id, at] of this.written) if (now.getTime() - at >= this.intervalMs) this.written.delete(id);
    }
    this.written.set(tokenId, now.getTime());
    const staleBefore = new Date(now.getTime() - this.intervalMs);
    this.model
      .update({ last_used_at: now }, { where: { id: tokenId, [Op.or]: [{ last_used_at: null }, { last_used_at: { [Op.lt]: staleBefore } }] } })
      .catch(this.onError);
  }
}
