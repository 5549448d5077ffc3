/**
 * The recorded answers the history rows' fakes are generated from: the history importers' own test fixtures
 * (test/fixtures/history/<provider>/README.md says where each was recorded) and the webhook deliveries the tests keep
 * (test/support/peers/<provider>/README.md). Read from the checkout, whether the bench runs from its sources or dist/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../../src/projectRoot';

/** Recorded JSON, read as the providers sent it: its shape is the provider's, not ours. */
export type Recorded = Record<string, any>;

export function recorded(file: string): Recorded {
  return JSON.parse(fs.readFileSync(path.join(projectRoot(), 'test', file), 'utf8')) as Recorded;
}

export function recordedList(file: string): Recorded[] {
  const list: unknown = recorded(file);
  if (!Array.isArray(list)) throw new Error(`test/${file} holds no list`);
  return list as Recorded[];
}

/** A recorded object with some of its fields replaced, the rest as recorded. */
export const varied = (template: Recorded, fields: Recorded): Recorded => ({ ...template, ...fields });
