import type express from 'express';
import request from 'supertest';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * `/scim/v2` as an identity provider calls it with a SCIM token: bodies as `application/scim+json`, an object sent
 * as JSON and a string as it is (a test of what the parser refuses).
 */
export function scimClient(app: express.Express, token: string) {
  const call = (method: Method, path: string, body?: unknown) => {
    const req = request(app)[method](`/scim/v2${path}`).set('Authorization', `Bearer ${token}`);
    if (body === undefined) return req;
    return req.set('Content-Type', 'application/scim+json').send(typeof body === 'string' ? body : JSON.stringify(body));
  };
  return {
    call,
    get: (path: string) => call('get', path),
    post: (path: string, body: unknown) => call('post', path, body),
    put: (path: string, body: unknown) => call('put', path, body),
    patch: (path: string, body: unknown) => call('patch', path, body),
    delete: (path: string) => call('delete', path),
  };
}
