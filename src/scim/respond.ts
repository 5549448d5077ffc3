import type { Request, Response } from 'express';
import type { ScimCaller } from '../auth/scimAuthenticator';

export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';

const callers = new WeakMap<Request, ScimCaller>();

export function setCaller(req: Request, caller: ScimCaller): void {
  callers.set(req, caller);
}

/** The authenticated caller; the router authenticates before any handler runs. */
export function callerOf(req: Request): ScimCaller {
  const caller = callers.get(req);
  if (!caller) throw new Error('SCIM handler reached without authentication');
  return caller;
}

export function sendScim(res: Response, status: number, body: unknown): void {
  res.status(status).setHeader('Content-Type', SCIM_CONTENT_TYPE);
  res.end(JSON.stringify(body));
}
