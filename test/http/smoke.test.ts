import { startTestApp, TestApp, DEMO } from '../support/harness';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

test('ada reads linus', async () => {
  const token = await t.token();
  const res = await t.get(`/v1/users/${DEMO.users.linus}`, token);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    status: 'success',
    data: { id: 'usr_linus', name: 'Linus Torvalds', email: 'linus@demo.test', created_at: '2024-03-15T12:00:00.000Z' },
  });
});
