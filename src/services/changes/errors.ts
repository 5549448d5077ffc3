/**
 * Why a writer refused a change, in the domain's words. Each surface maps the kind to its own error format in
 * one place (SCIM: 404, 409 `uniqueness`, 400 `invalidValue`); the message says what to fix.
 */
export type WriteErrorKind = 'not_found' | 'conflict' | 'invalid';

export class WriteError extends Error {
  constructor(
    readonly kind: WriteErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'WriteError';
  }
}

export const notFound = (message: string) => new WriteError('not_found', message);
export const conflict = (message: string) => new WriteError('conflict', message);
export const invalid = (message: string) => new WriteError('invalid', message);
