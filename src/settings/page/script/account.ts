import { $ } from '../../../pages/script/elements';
import { keepCsrfToken, whenSignedOut } from '../../../pages/script/session';
import { partsOf } from './parts';
import { clearSecret } from './secrets';

let signedIn = false;

/** From settings.session; every change sends it in the X-CSRF-Token header. */
export function showSignedIn(token: string): void {
  keepCsrfToken(token);
  signedIn = true;
  $('#loading').hidden = true;
  $('#account').hidden = false;
  $('#signed-in').hidden = false;
}

whenSignedOut(showSignedOut);

export function showSignedOut(reason: string): void {
  // Whatever was shown goes, secrets included.
  $('#organizations').replaceChildren();
  const tokens = partsOf($('#api-tokens'));
  clearSecret(tokens);
  tokens.list.replaceChildren();
  $('#loading').hidden = true;
  $('#account').hidden = true;
  $('#signed-in').hidden = true;
  $('#signed-out').hidden = false;
  $('#signed-out-reason').textContent = signedIn ? reason : '';
  // Ended while in use: what focus was on is gone, so it goes to what is said instead.
  if (signedIn) $('#signed-out-heading').focus();
  signedIn = false;
}
