import { ScimError } from '../../src/scim/errors';
import { patchedUser, PATCH_SCHEMA } from '../../src/scim/userPatch';
import { userInputOf } from '../../src/scim/userResource';
import type { MemberInput } from '../../src/services/people/members';
import { entraCreateUser, oktaCreateUser, SCIM } from '../support/peers/idpPayloads';

/**
 * The SCIM User body and PATCH as identity providers send them. Payloads are those of Okta's SCIM 2.0
 * reference, Microsoft Entra ID's provisioning documentation ("Develop a sample SCIM endpoint", "Known issues
 * and resolutions with SCIM 2.0 compliance") and RFC 7644 §3.5.2, reduced to this service's attributes only
 * where noted.
 */

const { user: CORE, enterprise: ENTERPRISE } = SCIM;

const ada: MemberInput = {
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  role: 'collaborator',
  active: true,
  externalId: '00u1abcd',
  title: null,
};

/** Ada as a PATCH answers her: name parts derived from her name (none were sent), her userName as her one address. */
const patchedAda: MemberInput = { ...ada, nameParts: { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' }, emails: [] };

const patch = (...Operations: unknown[]) => ({ schemas: [PATCH_SCHEMA], Operations });

function scimError(run: () => unknown): ScimError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(ScimError);
    return e as ScimError;
  }
  throw new Error('expected a ScimError');
}

describe('POST and PUT bodies', () => {
  test("Okta's create body", () => {
    expect(userInputOf(oktaCreateUser('Test.User@okta.local'))).toEqual({
      email: 'Test.User@okta.local',
      name: 'Test User',
      nameParts: { givenName: 'Test', familyName: 'User', formatted: null },
      emails: [{ value: 'test.user@okta.local', type: 'work', primary: true }],
      role: 'collaborator',
      active: true,
      externalId: '00ujl29u0le5T6Aj10h7',
      title: null,
    });
  });

  test("Entra ID's create body, with the enterprise extension and a role", () => {
    // As Entra sends it with default mappings: `active` as a string, an app role, a job title, a manager.
    const body = {
      ...entraCreateUser('Test_User_ab6490ee@testuser.com', '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef'),
      active: 'True',
      roles: [{ primary: 'True', type: 'WindowsAzureActiveDirectoryRole', value: 'Admin' }],
      title: 'Engineer',
      [ENTERPRISE]: { department: 'Eng', manager: { value: 'x' } },
    };
    expect(userInputOf(body)).toEqual({
      email: 'Test_User_ab6490ee@testuser.com',
      name: 'givenName familyName',
      nameParts: { givenName: 'givenName', familyName: 'familyName', formatted: 'givenName familyName' },
      emails: [{ value: 'Test_User_ab6490ee@testuser.com', type: 'work', primary: true }],
      role: 'admin',
      active: true,
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      title: 'Engineer',
    });
  });

  test('attribute names are case-insensitive; a missing name falls back to the e-mail', () => {
    expect(userInputOf({ SCHEMAS: [CORE], USERNAME: 'x@y.z', Active: false })).toMatchObject({ email: 'x@y.z', name: 'x@y.z', active: false });
  });

  const mistakes: [string, unknown, number, string | undefined, RegExp][] = [
    ['not an object', [1], 400, 'invalidSyntax', /JSON object/],
    ['no schemas', { userName: 'a@b.c' }, 400, 'invalidSyntax', /lists "urn:ietf:params:scim:schemas:core:2.0:User"/],
    ['no userName', { schemas: [CORE] }, 400, 'invalidValue', /'userName' is required/],
    ['userName not an e-mail', { schemas: [CORE], userName: 'jdoe' }, 400, 'invalidValue', /e-mail address/],
    ['userName a number', { schemas: [CORE], userName: 5 }, 400, 'invalidValue', /must be a string/],
    ['active not a boolean', { schemas: [CORE], userName: 'a@b.c', active: 'yes' }, 400, 'invalidValue', /true or false/],
    ['unknown role', { schemas: [CORE], userName: 'a@b.c', roles: [{ value: 'owner' }] }, 400, 'invalidValue', /admin, manager, collaborator/],
    ['unknown attribute', { schemas: [CORE], userName: 'a@b.c', shoeSize: 44 }, 400, 'invalidSyntax', /Unknown attribute 'shoeSize'/],
    ['name not an object', { schemas: [CORE], userName: 'a@b.c', name: 'Ada' }, 400, 'invalidValue', /'name' must be an object/],
    ['empty displayName', { schemas: [CORE], userName: 'a@b.c', displayName: ' ' }, 400, 'invalidValue', /must not be empty/],
  ];
  test.each(mistakes)('%s', (_what, body, status, scimType, detail) => {
    const e = scimError(() => userInputOf(body));
    expect({ status: e.status, scimType: e.scimType }).toEqual({ status, scimType });
    expect(e.detail).toMatch(detail);
  });
});

describe('PATCH', () => {
  test('Okta deactivates with a path-less value object', () => {
    expect(patchedUser(ada, patch({ op: 'replace', value: { active: false } }))).toEqual({ ...patchedAda, active: false });
  });

  test('Entra ID deactivates with a capitalised op and a string boolean', () => {
    expect(patchedUser(ada, patch({ op: 'Replace', path: 'active', value: 'False' }))).toEqual({ ...patchedAda, active: false });
  });

  test('Entra ID updates userName, the work e-mail and the family name in one request', () => {
    const body = patch(
      { op: 'Replace', path: 'userName', value: 'ada.byron@example.com' },
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'ada.byron@example.com' },
      { op: 'Replace', path: 'name.familyName', value: 'Byron' },
    );
    expect(patchedUser(ada, body)).toEqual({
      ...ada,
      email: 'ada.byron@example.com',
      name: 'Ada Byron',
      nameParts: { givenName: 'Ada', familyName: 'Byron', formatted: 'Ada Byron' },
      // Her one address was her userName, a work address: the value path selects it.
      emails: [{ value: 'ada.byron@example.com', type: 'work', primary: true }],
    });
  });

  test('Entra ID path-less values with dotted and schema-qualified names, and an enterprise manager', () => {
    const body = patch(
      { op: 'Add', value: { 'name.givenName': 'Augusta', displayName: 'Augusta Ada King', title: 'Countess' } },
      { op: 'Add', path: `${ENTERPRISE}:manager`, value: 'usr_babbage' },
      { op: 'Replace', value: { [`${CORE}:externalId`]: 'entra-1', [ENTERPRISE]: { department: 'Analytics' } } },
    );
    expect(patchedUser(ada, body)).toEqual({
      ...patchedAda,
      name: 'Augusta Ada King',
      nameParts: { givenName: 'Augusta', familyName: 'Lovelace', formatted: 'Augusta Lovelace' },
      title: 'Countess',
      externalId: 'entra-1',
    });
  });

  test('roles: replaced by a value array, by a value path, and removed back to collaborator', () => {
    const admin = patchedUser(ada, patch({ op: 'replace', path: 'roles', value: [{ value: 'admin', primary: true }] }));
    expect(admin.role).toBe('admin');
    expect(patchedUser(admin, patch({ op: 'Replace', path: 'roles[primary eq "True"].value', value: 'manager' })).role).toBe('manager');
    expect(patchedUser(admin, patch({ op: 'remove', path: 'roles' })).role).toBe('collaborator');
  });

  test('RFC 7644 §3.5.2: add, replace and remove of single-valued attributes', () => {
    const body = patch({ op: 'add', path: 'title', value: 'Tour Guide' }, { op: 'remove', path: 'externalId' }, { op: 'replace', path: 'name', value: { givenName: 'Babs', familyName: 'Jensen' } });
    expect(patchedUser(ada, body)).toEqual({
      ...patchedAda,
      title: 'Tour Guide',
      externalId: null,
      name: 'Babs Jensen',
      nameParts: { givenName: 'Babs', familyName: 'Jensen', formatted: 'Babs Jensen' },
    });
  });

  test('attributes we do not keep are accepted and change nothing', () => {
    const body = patch({ op: 'replace', path: 'phoneNumbers[type eq "mobile"].value', value: '+1 555' }, { op: 'add', value: { locale: 'fr-FR', nickName: 'Addie' } });
    expect(patchedUser(ada, body)).toEqual(patchedAda);
  });

  test('name parts are kept as sent: a displayName stays the name, the parts change alone', () => {
    const okta = { ...patchedAda, name: 'okta abc', nameParts: { givenName: 'Oktaabc', familyName: 'Scimbar', formatted: null } };
    expect(patchedUser(okta, patch({ op: 'replace', path: 'name.givenName', value: 'Oktaxyz' }))).toEqual({
      ...okta,
      nameParts: { givenName: 'Oktaxyz', familyName: 'Scimbar', formatted: null },
    });
    expect(patchedUser(okta, patch({ op: 'replace', path: 'name.formatted', value: 'Dr. Okta' })).nameParts?.formatted).toBe('Dr. Okta');
    expect(patchedUser(okta, patch({ op: 'remove', path: 'name.familyName' })).nameParts).toEqual({ givenName: 'Oktaabc', familyName: null, formatted: null });
  });

  test('e-mails: Entra ID replaces the work address beside the userName; add, remove by value path, primary', () => {
    const withWork = patchedUser(ada, patch({ op: 'Replace', path: 'emails[type eq "work"].value', value: 'ada@contoso.com' }));
    expect(withWork).toEqual({ ...patchedAda, emails: [{ value: 'ada@contoso.com', type: 'work', primary: true }] });
    const withHome = patchedUser(withWork, patch({ op: 'add', path: 'emails', value: [{ value: 'ada@home.example', type: 'home' }] }));
    expect(withHome.emails).toEqual([
      { value: 'ada@contoso.com', type: 'work', primary: true },
      { value: 'ada@home.example', type: 'home', primary: false },
    ]);
    expect(patchedUser(withHome, patch({ op: 'remove', path: 'emails[type eq "home"]' })).emails).toEqual(withWork.emails);
    // A filter nothing matches adds an address with what the filter names (as Entra ID expects).
    expect(patchedUser(withWork, patch({ op: 'replace', path: 'emails[type eq "other"].value', value: 'a@other.example' })).emails).toEqual([
      { value: 'ada@contoso.com', type: 'work', primary: true },
      { value: 'a@other.example', type: 'other', primary: false },
    ]);
    expect(scimError(() => patchedUser(withWork, patch({ op: 'replace', path: 'emails[type eq "work"].value', value: 'nope' }))).detail).toMatch(/e-mail address/);
    expect(scimError(() => patchedUser(withWork, patch({ op: 'add', path: 'emails', value: [{ value: 'b@x.example', primary: true }] }))).detail).toMatch(/at most one/);
  });

  const mistakes: [string, unknown, string, RegExp][] = [
    ['no PatchOp schema', { schemas: [CORE], Operations: [{ op: 'replace', path: 'active', value: false }] }, 'invalidSyntax', /PatchOp/],
    ['no operations', patch(), 'invalidSyntax', /non-empty "Operations"/],
    ['unknown op', patch({ op: 'move', path: 'active', value: false }), 'invalidSyntax', /add, replace or remove/],
    ['remove without path', patch({ op: 'remove' }), 'noTarget', /needs a "path"/],
    ['path-less value not an object', patch({ op: 'replace', value: false }), 'invalidValue', /must be an object of attributes/],
    ['add without value', patch({ op: 'add', path: 'title' }), 'invalidValue', /needs a "value"/],
    ['unknown attribute', patch({ op: 'replace', path: 'shoeSize', value: 44 }), 'invalidPath', /no attribute 'shoeSize'/],
    ['malformed path', patch({ op: 'replace', path: 'name..givenName', value: 'x' }), 'invalidPath', /not an attribute path/],
    ['filter on a single-valued attribute', patch({ op: 'replace', path: 'title[value eq "x"]', value: 'x' }), 'invalidPath', /no values to select/],
    ['read-only id', patch({ op: 'replace', path: 'id', value: 'usr_x' }), 'mutability', /read-only/],
    ['removing userName', patch({ op: 'remove', path: 'userName' }), 'mutability', /cannot be removed/],
    ['active not a boolean', patch({ op: 'replace', path: 'active', value: 'nope' }), 'invalidValue', /true or false/],
    ['bad userName', patch({ op: 'replace', path: 'userName', value: 'ada' }), 'invalidValue', /e-mail address/],
  ];
  test.each(mistakes)('%s', (_what, body, scimType, detail) => {
    const e = scimError(() => patchedUser(ada, body));
    expect({ status: e.status, scimType: e.scimType }).toEqual({ status: 400, scimType });
    expect(e.detail).toMatch(detail);
  });
});
