/**
 * The signed-in session as the pages' script holds it: its CSRF token, which every change sends, and what the page
 * does when the session ends (a 401). Shared by the settings and the dashboards pages; each says what ending means.
 */
let csrf = '';
let onSignedOut: (reason: string) => void = () => undefined;

export const csrfToken = () => csrf;
export const keepCsrfToken = (token: string) => {
  csrf = token;
};

export function whenSignedOut(show: (reason: string) => void): void {
  onSignedOut = show;
}

export function signedOut(reason: string): void {
  csrf = '';
  onSignedOut(reason);
}
