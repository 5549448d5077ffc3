import { wireContract } from './wireContract';

// Registered in jest.config.js (setupFilesAfterEnv): every test fails if a response it caused departs from
// the OpenAPI document.
const sink = wireContract();

afterEach(() => {
  const found = sink.violations.splice(0);
  if (found.length) throw new Error(`Responses that do not match /v1/openapi.json:\n${found.join('\n')}`);
});
