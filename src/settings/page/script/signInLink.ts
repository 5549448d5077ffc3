// The one-time sign-in link's page (/auth/link): moves the token from the link's fragment into the sign-in form, and
// out of the address bar and history.
import { $ } from '../../../pages/script/elements';

const token = decodeURIComponent(window.location.hash.slice(1));
$<HTMLInputElement>('#token').value = token;
if (token) window.history.replaceState(null, '', window.location.pathname);
