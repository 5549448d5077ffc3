import { ScimError } from './errors';

export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export type PatchOpName = 'add' | 'replace' | 'remove';

export interface PatchOperation {
  op: PatchOpName;
  path?: string;
  value: unknown;
  /** "Operation 3": how messages name it. */
  where: string;
}

/**
 * The operations of a PatchOp body (RFC 7644 §3.5.2), checked, in the forms identity providers send: member
 * names in any case, capitalised ops (`"Replace"`, Entra ID). What each path means is the resource's business.
 */
export function patchOperations(body: unknown): PatchOperation[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ScimError(400, 'invalidSyntax', 'The body must be a JSON object (a SCIM PatchOp)');
  const fields = lowerKeys(body as Record<string, unknown>);
  if (!Array.isArray(fields.schemas) || !fields.schemas.some((s) => typeof s === 'string' && s.toLowerCase() === PATCH_SCHEMA.toLowerCase())) {
    throw new ScimError(400, 'invalidSyntax', `A PATCH body lists "${PATCH_SCHEMA}" in "schemas"`);
  }
  if (!Array.isArray(fields.operations) || fields.operations.length === 0) throw new ScimError(400, 'invalidSyntax', 'A PATCH body has a non-empty "Operations" array');
  return fields.operations.map((operation, index) => {
    const where = `Operation ${index + 1}`;
    if (!operation || typeof operation !== 'object' || Array.isArray(operation)) {
      throw new ScimError(400, 'invalidSyntax', `${where} must be an object with "op", "path" and "value"`);
    }
    const o = lowerKeys(operation as Record<string, unknown>);
    const op = typeof o.op === 'string' ? o.op.toLowerCase() : undefined;
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw new ScimError(400, 'invalidSyntax', `${where}: "op" must be add, replace or remove, not ${JSON.stringify(o.op)}`);
    }
    if (o.path !== undefined && (typeof o.path !== 'string' || o.path.trim() === '')) {
      throw new ScimError(400, 'invalidPath', `${where}: "path" must be a non-empty string`);
    }
    if (op !== 'remove' && !('value' in o)) throw new ScimError(400, 'invalidValue', `${where}: "${op}" needs a "value"`);
    if (o.path === undefined) {
      if (op === 'remove') throw new ScimError(400, 'noTarget', `${where}: "remove" needs a "path"`);
      if (!o.value || typeof o.value !== 'object' || Array.isArray(o.value)) {
        throw new ScimError(400, 'invalidValue', `${where}: without a "path", "value" must be an object of attributes`);
      }
    }
    return { op, path: (o.path as string | undefined)?.trim(), value: o.value, where };
  });
}

/** A path-less operation's value object as (path, value) pairs: Okta's `{"active": false}`, Entra's dotted names. */
export function pathsOf(operation: PatchOperation): [string, unknown][] {
  return operation.path !== undefined ? [[operation.path, operation.value]] : Object.entries(operation.value as Record<string, unknown>);
}

export const lowerKeys = (object: Record<string, unknown>) => Object.fromEntries(Object.entries(object).map(([k, v]) => [k.toLowerCase(), v]));
