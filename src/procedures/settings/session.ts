import { settingsProcedure } from '../init';
import { signedInUser } from '../../services/people/signedInUser';

/** Who is signed in, in which organizations with which role, and the CSRF token the page sends with every change. */
export const sessionProcedure = settingsProcedure.query(async ({ ctx }) => {
  const { session, principal } = ctx.settings;
  const user = await signedInUser(principal);
  return { ...user, csrf_token: session.csrfToken, expires_at: session.endsAt.toISOString() };
});
