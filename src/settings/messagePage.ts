import type { Response } from 'express';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Trusted markup for `sendPage`; everything else given to it is escaped. */
export class Html {
  constructor(readonly markup: string) {}
}

export const html = (strings: TemplateStringsArray, ...values: (string | Html)[]): Html =>
  new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? toMarkup(values[i]) : ''), ''));

const toMarkup = (v: string | Html) => (v instanceof Html ? v.markup : escapeHtml(v));

/**
 * A page of the sign-in flow: a title and a few lines, in the settings page's style, never cached. A refusal says
 * what happened and what to do, as every error of the service does.
 */
export function sendPage(res: Response, status: number, title: string, body: Html): void {
  res
    .status(status)
    .set('Cache-Control', 'no-store')
    .type('html')
    .send(
      `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>${escapeHtml(title)} · Platform settings</title><link rel="stylesheet" href="/settings/settings.css"></head>` +
        `<body><main class="message"><h1>${escapeHtml(title)}</h1>${body.markup}</main></body></html>\n`,
    );
}
