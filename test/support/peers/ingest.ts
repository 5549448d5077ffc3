import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { sign } from '@octokit/webhooks-methods';
import { QueryTypes } from 'sequelize';
import { Commit, Deployment, Incident, IngestDelivery, Interaction, OutboxEvent, PullRequest, PullRequestActivity, RemovedTask, Repository, Task, TaskStatusChange } from '../../../db/models';
import type { TestApp } from '../harness';
import { eraseDeletedRepositories as eraseRepositoriesPastGrace } from '../../../src/services/git/repositories/deletedRepositories';

/** GitHub's own example payloads (`@octokit/webhooks-examples`), by event name. */
export function githubExamples(event: string): Record<string, any>[] {
  const all = require('@octokit/webhooks-examples') as { name: string; examples: Record<string, any>[] }[];
  const found = all.find((e) => e.name === event);
  if (!found) throw new Error(`no GitHub examples for ${event}`);
  return found.examples;
}

export const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value));

export interface GithubDelivery {
  event: string;
  payload: unknown;
  id?: string;
  /** Defaults to the body signed with the app's secret, as GitHub's helper signs it. */
  signature?: string | null;
  body?: string;
  headers?: Record<string, string>;
}

/** A delivery as GitHub sends it: JSON body, `X-GitHub-Event`, `X-GitHub-Delivery`, `X-Hub-Signature-256`. */
export async function deliverToGithub(t: TestApp, gitAppId: string, secret: string, d: GithubDelivery) {
  const body = d.body ?? JSON.stringify(d.payload);
  const signature = d.signature === undefined ? await sign(secret, body) : d.signature;
  const req = request(t.runtime.app)
    .post(`/ingest/github/${gitAppId}`)
    .set('Content-Type', 'application/json')
    .set('User-Agent', 'GitHub-Hookshot/044aadd')
    .set('X-GitHub-Event', d.event)
    .set('X-GitHub-Delivery', d.id ?? randomUUID())
    .set('X-GitHub-Hook-ID', '292430182');
  if (signature !== null) req.set('X-Hub-Signature-256', signature);
  for (const [name, value] of Object.entries(d.headers ?? {})) req.set(name, value);
  return req.send(body);
}

export interface GitlabDelivery {
  event: string;
  payload: unknown;
  id?: string;
  /** Defaults to the app's secret. */
  token?: string | null;
  body?: string;
  headers?: Record<string, string>;
}

/** A delivery as GitLab sends it (doc/user/project/integrations/webhooks.md, "Delivery headers"). */
export function deliverToGitlab(t: TestApp, gitAppId: string, secret: string, d: GitlabDelivery) {
  const req = request(t.runtime.app)
    .post(`/ingest/gitlab/${gitAppId}`)
    .set('Content-Type', 'application/json')
    .set('User-Agent', 'GitLab/17.6.0')
    .set('X-Gitlab-Event', d.event)
    .set('X-Gitlab-Instance', 'https://gitlab.example.com')
    .set('X-Gitlab-Webhook-UUID', '02affd2d-2cba-4033-917d-ec22d5dc4b38')
    .set('X-Gitlab-Event-UUID', d.id ?? randomUUID());
  const token = d.token === undefined ? secret : d.token;
  if (token !== null) req.set('X-Gitlab-Token', token);
  for (const [name, value] of Object.entries(d.headers ?? {})) req.set(name, value);
  return req.send(d.body ?? JSON.stringify(d.payload));
}

/**
 * What the retention worker does once the grace of repositories their provider reported deleted has passed: erases
 * them (every one so reported), with what they hold. How many it erased.
 */
export function eraseDeletedRepositories(t: TestApp): Promise<number> {
  return eraseRepositoriesPastGrace(t.runtime.writers.changes, new Date('3000-01-01T00:00:00Z'), t.config.REPOSITORY_DELETE_GRACE_DAYS);
}

/** Row counts of everything a delivery may write: equal before and after means nothing was written. */
export async function ingestCounts(): Promise<Record<string, number>> {
  const models = { Repository, Commit, PullRequest, PullRequestActivity, Deployment, Incident, IngestDelivery, OutboxEvent, Task, TaskStatusChange, RemovedTask, Interaction };
  const entries = await Promise.all(Object.entries(models).map(async ([name, model]) => [name, await (model as typeof Commit).count()] as const));
  return Object.fromEntries(entries);
}

/** The outbox events written after `seq`, oldest first. */
export async function eventsAfter(seq: number): Promise<{ type: string; data: any }[]> {
  const { Op } = await import('sequelize');
  const rows = await OutboxEvent.findAll({ where: { seq: { [Op.gt]: seq } }, order: [['seq', 'ASC']] });
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.data) }));
}

export async function lastEventSeq(): Promise<number> {
  return Number((await OutboxEvent.max('seq')) ?? 0);
}

/** An interaction_days count (docs/metrics.md#activity): a scope (organization or team), a UTC day, a type. */
export async function interactionDay(scopeId: string, day: string, type: string): Promise<number> {
  const rows = await Task.sequelize!.query<{ interactions: number | string }>('SELECT interactions FROM interaction_days WHERE scope_id = :scopeId AND day = :day AND type = :type', {
    replacements: { scopeId, day, type },
    type: QueryTypes.SELECT,
  });
  return rows.reduce((sum, r) => sum + Number(r.interactions), 0);
}
