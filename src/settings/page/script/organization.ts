import type { Outputs } from '../../../pages/script/api';
import { h } from '../../../pages/script/elements';
import { appsSection } from './apps';
import { gitAppsSection } from './gitApps';
import { organizationTokensSection, SCIM, TELEMETRY } from './organizationTokens';
import type { Catalog } from './providers';
import { webhooksSection } from './webhooks';
import { teamsSection } from './teams';
import { membersSection } from './members';
import { setupSection } from './setup';
import { metricSettingsSection } from './metricSettings';

type Organization = Outputs['settings']['session']['organizations'][number];

/** What an admin manages for one organization: its setup at a glance, webhooks, git apps, apps, members, teams, what counts in its figures, SCIM and telemetry tokens. `providers`: those offered. */
export function organizationSection(org: Organization, eventTypes: Outputs['settings']['webhooks']['eventTypes'], providers: Catalog): HTMLElement {
  const headingId = `${org.id}-heading`;
  return h(
    'section',
    { class: 'organization', 'aria-labelledby': headingId },
    h('h2', { id: headingId }, org.name),
    h('p', { class: 'muted' }, 'You are an admin of this organization.'),
    setupSection(org),
    webhooksSection(org, eventTypes),
    gitAppsSection(org, providers),
    appsSection(org, providers),
    membersSection(org),
    teamsSection(org),
    metricSettingsSection(org),
    organizationTokensSection(org, SCIM),
    organizationTokensSection(org, TELEMETRY),
  );
}
