/**
 * The history floor's rows for an app's page (floor.ts): PagerDuty's and Opsgenie's incidents as the operations writer
 * stores those of a board mapped to no repository (src/services/operations/operationsWriter.ts: the app, its board, no
 * repository) with their outbox events, and Slack's messages as the conversation writer stores them
 * (src/services/activity/conversations.ts): a `communication` interaction from its author to each member it speaks to.
 * An incident's note naming a commit is not written (the fakes' notes name none), nor are unmatched accounts.
 */
import type { Connection } from 'mysql2/promise';
import { newId } from '../../../src/persistence/changes/ids';
import type { ChatMessage } from '../../../src/services/activity/conversations';
import { clip, LIMITS } from '../../../src/services/git/text';
import type { OperationEvent } from '../../../src/services/operations/operationInput';
import { Events, insertInteractions, insertRows } from './floorSql';

export interface FloorApp {
  id: string;
  organization_id: string;
  provider: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export class AppFloor {
  constructor(
    private readonly db: Connection,
    private readonly app: FloorApp,
    /** The app's linked accounts (user_apps): the provider's account id → the member. */
    private readonly members: Map<string, string>,
  ) {}

  async page(operations: OperationEvent[], messages: ChatMessage[]): Promise<void> {
    const events = new Events(this.app.organization_id);
    await this.db.beginTransaction();
    const incidents = new Map<string, Extract<OperationEvent, { kind: 'incident' }>>();
    // The newest view of an incident the page brings twice.
    for (const o of operations) {
      if (o.kind !== 'incident') continue;
      const seen = incidents.get(o.incident.externalId);
      if (!seen || seen.incident.updatedAt <= o.incident.updatedAt) incidents.set(o.incident.externalId, o);
    }
    const rows = [...incidents.values()].map(({ board, incident }) => ({
      id: newId('inc'),
      repository_id: null,
      git_app_id: null,
      organization_id: this.app.organization_id,
      app_id: this.app.id,
      board_key: board.candidates[0] ? clip(board.candidates[0], 200) : null,
      external_id: incident.externalId,
      title: clip(incident.title, LIMITS.title),
      cause_sha: incident.causeSha,
      fix_sha: incident.fixSha,
      created_at: incident.createdAt,
      resolved_at: incident.resolvedAt,
      provider_updated_at: incident.updatedAt,
      urgency: incident.urgency ?? null,
      priority: incident.priority === undefined ? null : clip(incident.priority, LIMITS.priority),
      service: incident.service === undefined ? null : clip(incident.service, LIMITS.name),
    }));
    await insertRows(this.db, 'incidents', rows, { ignore: true });
    for (const i of rows) {
      const item = { id: i.id, repository_id: null, app_id: i.app_id, service: i.board_key, title: i.title, cause_sha: i.cause_sha, fix_sha: i.fix_sha, created_at: iso(i.created_at), resolved_at: iso(i.resolved_at) };
      events.emit('incident.opened', { ...item, resolved_at: null });
      if (i.resolved_at) events.emit('incident.resolved', item);
    }
    await insertInteractions(
      this.db,
      messages.flatMap((m) => {
        const author = this.members.get(m.sender);
        if (!author) return [];
        return m.counterparts.flatMap((counterpart) => {
          const counterpartId = this.members.get(counterpart);
          const ref = `${this.app.provider}:${m.channel}:${m.messageId}:${counterpart}`;
          return counterpartId ? [{ organization_id: this.app.organization_id, type: 'communication', source: this.app.provider, user_id: author, counterpart_id: counterpartId, created_at: m.at, source_ref: ref }] : [];
        });
      }),
    );
    await events.write(this.db);
    await this.db.commit();
  }

  /** Accounts linked by e-mail before the messages (as `npm run import -- slack` links them first). */
  async link(accounts: { externalId: string; email: string }[], memberByEmail: Map<string, string>): Promise<void> {
    const rows = accounts.flatMap((a) => {
      const userId = memberByEmail.get(a.email.toLowerCase());
      return userId && !this.members.has(a.externalId) ? [{ user_id: userId, app_id: this.app.id, external_user_id: a.externalId, created_at: new Date() }] : [];
    });
    await insertRows(this.db, 'user_apps', rows, { ignore: true });
    for (const r of rows) this.members.set(r.external_user_id, r.user_id);
  }
}
