// The settings page (docs/settings.md): the signed-in person's API tokens, and for an organization's admins its
// webhooks, git apps, SCIM and telemetry tokens, through the settings.* procedures only. Secrets live in the page
// only while shown.
import { attempt } from '../../../pages/script/attempt';
import { api, ApiError, call, csrfHeader } from '../../../pages/script/api';
import { $ } from '../../../pages/script/elements';
import { showSignedIn } from './account';
import { showApiTokens } from './apiTokens';
import { organizationSection } from './organization';

async function start(): Promise<void> {
  let session;
  try {
    session = await call(api.settings.session.query());
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) {
      $('#loading').hidden = true;
      $('#page-alert').textContent = err instanceof Error ? err.message : String(err);
    }
    return;
  }
  $('#account-name').textContent = session.user.name;
  $('#account-email').textContent = `(${session.user.email})`;
  $('#memberships').textContent = session.organizations.length
    ? `Your organizations: ${session.organizations.map((o) => `${o.name} (${o.role})`).join(', ')}.`
    : 'You are not an active member of any organization.';
  showSignedIn(session.csrf_token);
  await showApiTokens(session.organizations);
  const administered = session.organizations.filter((o) => o.role === 'admin');
  if (administered.length) {
    await attempt($('#page-alert'), async () => {
      // Read once for every organization's sections: the events a webhook may name, the providers a connection may have.
      const [eventTypes, providers] = await Promise.all([call(api.settings.webhooks.eventTypes.query()), call(api.settings.providers.query())]);
      $('#organizations').replaceChildren(...administered.map((org) => organizationSection(org, eventTypes, providers)));
    });
  }
}

function signOut(): void {
  attempt($('#sign-out-alert'), async () => {
    // The answer is a redirect to this page, not followed: the page reloads itself below.
    const res = await fetch('/auth/logout', { method: 'POST', credentials: 'same-origin', redirect: 'manual', headers: csrfHeader() });
    // A refusal is a page for people (403); it says why, but this one line is enough here.
    if (res.type !== 'opaqueredirect' && !res.ok) throw new ApiError(`Signing out was refused (${res.status}). Reload the page and try again.`, res.status);
    window.location.assign('/settings/');
  });
}

$('#sign-out').addEventListener('click', signOut);
start();
