import { z } from 'zod';
import type { App, GitApp, UserApp, UserGitApp } from '../../db/models';
import { APP_CATEGORIES } from '../../db/vocabulary';
import { timestamp } from '../wire/envelopes';
import { defineResource, iso } from './resource';

export const AppResource = defineResource(
  'App',
  'An integration connected to an organization.',
  {
    id: z.string(),
    organization_id: z.string(),
    provider: z.string().meta({ description: 'jira, linear, slack, pagerduty, opsgenie, deployments, copilot, ...' }),
    category: z.enum(APP_CATEGORIES).meta({ description: 'What it brings in: issues (tasks), chat, git, incidents, deployments or ai' }),
    name: z.string(),
    is_active: z.boolean(),
    created_at: timestamp,
  },
  { sort: ['created_at', 'name'] },
);

export const UserAppResource = defineResource(
  'UserApp',
  "A user's account on an organization app.",
  {
    id: z.string().meta({ description: 'App id' }),
    provider: z.string(),
    name: z.string(),
    user_id: z.string(),
    external_user_id: z.string(),
    created_at: timestamp.meta({ description: 'When the account was linked' }),
  },
  { sort: ['created_at', 'name'] },
);

export const GitAppResource = defineResource(
  'GitApp',
  'A git integration (GitHub, GitLab, Bitbucket or plain git) of an organization.',
  {
    id: z.string(),
    organization_id: z.string(),
    provider: z.string().meta({ description: 'The git provider (github, gitlab, bitbucket; the service may connect more), or git for commits imported from a clone', example: 'github' }),
    name: z.string(),
    is_active: z.boolean(),
    created_at: timestamp,
  },
  { sort: ['created_at', 'name'] },
);

export const UserGitAppResource = defineResource(
  'UserGitApp',
  "A user's account on a git integration.",
  {
    id: z.string().meta({ description: 'Git app id' }),
    provider: z.string().meta({ description: 'The git provider (github, gitlab, bitbucket; the service may connect more), or git for commits imported from a clone', example: 'github' }),
    name: z.string(),
    user_id: z.string(),
    username: z.string(),
    created_at: timestamp.meta({ description: 'When the account was linked' }),
  },
  { sort: ['created_at', 'name'] },
);

export const toApp = (a: App) => ({
  id: a.id,
  organization_id: a.organization_id,
  provider: a.provider,
  category: a.category,
  name: a.name,
  is_active: Boolean(a.is_active),
  created_at: iso(a.created_at),
});
export const toGitApp = (g: GitApp) => ({
  id: g.id,
  organization_id: g.organization_id,
  provider: g.provider,
  name: g.name,
  is_active: Boolean(g.is_active),
  created_at: iso(g.created_at),
});
export const toUserApp = (b: UserApp & { app: App }) => ({
  id: b.app.id,
  provider: b.app.provider,
  name: b.app.name,
  user_id: b.user_id,
  external_user_id: b.external_user_id,
  created_at: iso(b.created_at),
});
export const toUserGitApp = (b: UserGitApp & { git_app: GitApp }) => ({
  id: b.git_app.id,
  provider: b.git_app.provider,
  name: b.git_app.name,
  user_id: b.user_id,
  username: b.username,
  created_at: iso(b.created_at),
});

// An item's id is its app's, which the binding holds too: ordering by the binding's own column (not the joined
// app's) keeps a page's sort to the binding's rows, without MariaDB's temporary table for an order across two tables.
export const userAppColumns = { id: 'app_id', name: ['app', 'name'] } as const;
export const userGitAppColumns = { id: 'git_app_id', name: ['git_app', 'name'] } as const;
