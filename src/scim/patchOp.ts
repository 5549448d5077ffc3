import { isRecord } from '../wire/record';
import { ScimError } from './errors';

export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export type PatchOpName = 'add' | 'replace' | 'remove';

/** Without a path, the value is an object of attributes (checked when the body is read). */
export type PatchOperation = { op: PatchOpName; /** "Operation 3": how messages name it. */ where: string } & (
  | { path: string; value: unknown }
  | { path?: undefined; value: Record<string, unknown> }
);

/**
 * The operations of a PatchOp body (RFC 7644 §3.5.2), checked, in the forms identity providers send: member
 * names in any case, capitalised ops (`"Replace"`, Entra ID). What each path means is the resource's business.
 */
export function patchOperations(body: unknown): PatchOperation[] {
  if (!isRecord(body)) throw new ScimError(400, 'invalidSyntax', 'The body must be a JSON object (a SCIM PatchOp)');
  const fields = lowerKeys(body);
  if (!Array.isArray(fields.schemas) || !fields.schemas.some((s) => typeof s === 'string' && s.toLowerCase() === PATCH_SCHEMA.toLowerCase())) {
    throw new ScimError(400, 'invalidSyntax', `A PATCH body lists "${PATCH_SCHEMA}" in "schemas"`);
  }
  if (!Array.isArray(fields.operations) || fields.operations.length === 0) throw new ScimError(400, 'invalidSyntax', 'A PATCH body has a non-empty "Operations" array');
  return fields.operations.map((operation: unknown, index): PatchOperation => {
    const where = `Operation ${index + 1}`;
    if (!isRecord(operation)) {
      throw new ScimError(400, 'invalidSyntax', `${where} must be an object with "op", "path" and "value"`);
    }
    const o = lowerKeys(operation);
    const op = typeof o.op === 'string' ? o.op.toLowerCase() : undefined;
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw new ScimError(400, 'invalidSyntax', `${where}: "op" must be add, replace or remove, not ${JSON.stringify(o.op)}`);
    }
    const { path, value } = o;
    if (path !== undefined && (typeof path !== 'string' || path.trim() === '')) {
      throw new ScimError(400, 'invalidPath', `${where}: "path" must be a non-empty string`);
    }
    if (op !== 'remove' && !('value' in o)) throw new ScimError(400, 'invalidValue', `${where}: "${op}" needs a "value"`);
    if (typeof path === 'string') return { op, path: path.trim(), value, where };
    if (op === 'remove') throw new ScimError(400, 'noTarget', `${where}: "remove" needs a "path"`);
    if (!isRecord(value)) throw new ScimError(400, 'invalidValue', `${where}: without a "path", "value" must be an object of attributes`);
    return { op, value, where };
  });
}

/** A path-less operation's value object as (path, value) pairs: Okta's `{"active": false}`, Entra's dotted names. */
export function pathsOf(operation: PatchOperation): [string, unknown][] {
  return operation.path !== undefined ? [[operation.path, operation.value]] : Object.entries(operation.value);
}

export const lowerKeys = (object: Record<string, unknown>) => Object.fromEntries(Object.entries(object).map(([k, v]) => [k.toLowerCase(), v]));
