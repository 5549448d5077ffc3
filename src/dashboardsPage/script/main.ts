// The dashboards page (docs/dashboards.md): the views one may open, and one opened with its panels drawn for a scope,
// a window and an interval that its address holds; through the dashboards.* procedures of the signed-in session.
import { api, ApiError, call } from '../../pages/script/api';
import { $ } from '../../pages/script/elements';
import { keepCsrfToken, whenSignedOut } from '../../pages/script/session';
import { showViews } from './list';
import { showView } from './view';

whenSignedOut((reason) => {
  for (const part of ['#views-page', '#view-page', '#loading']) $(part).hidden = true;
  $('#signed-out').hidden = false;
  $('#signed-out-reason').textContent = reason;
  // Back here, on this address, once signed in.
  $<HTMLAnchorElement>('#sign-in').href = `/auth/login?return_to=${encodeURIComponent(window.location.pathname + window.location.search)}`;
  $('#signed-out-heading').focus();
});

/** `/dashboards/` lists the views; `/dashboards/{view_id}` opens one. */
async function start(): Promise<void> {
  try {
    const session = await call(api.settings.session.query());
    keepCsrfToken(session.csrf_token);
    const [catalog, scopes] = await Promise.all([call(api.dashboards.catalog.query()), call(api.dashboards.scopes.query())]);
    const viewId = decodeURIComponent(window.location.pathname.replace(/^\/dashboards\/?/, '').replace(/\/$/, ''));
    $('#loading').hidden = true;
    if (viewId) await showView(viewId, catalog, scopes, session.user.id);
    else await showViews(catalog, scopes, session.user.id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return;
    $('#loading').hidden = true;
    $('#page-alert').textContent = err instanceof Error ? err.message : String(err);
  }
}

start();
