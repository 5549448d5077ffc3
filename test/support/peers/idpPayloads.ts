/**
 * SCIM requests as identity providers send them, once for every test that replays them: Okta's create-user
 * body (Okta SCIM 2.0 reference) and Microsoft Entra ID's (its "Develop a sample SCIM endpoint" tutorial).
 */

export const SCIM = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  enterprise: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  patch: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
} as const;

export function oktaCreateUser(userName: string): Record<string, unknown> {
  return {
    schemas: [SCIM.user],
    userName,
    name: { givenName: 'Test', familyName: 'User' },
    emails: [{ primary: true, value: userName.toLowerCase(), type: 'work' }],
    displayName: 'Test User',
    locale: 'en-US',
    externalId: '00ujl29u0le5T6Aj10h7',
    groups: [],
    password: '1mz050nq',
    active: true,
  };
}

export function entraCreateUser(userName: string, externalId: string): Record<string, unknown> {
  return {
    schemas: [SCIM.user, SCIM.enterprise],
    externalId,
    userName,
    active: true,
    emails: [{ primary: true, type: 'work', value: userName }],
    meta: { resourceType: 'User' },
    name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
    roles: [],
    [SCIM.enterprise]: { department: 'Eng' },
  };
}
