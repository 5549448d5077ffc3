import { randomBytes } from 'node:crypto';

/** Eight hex characters, for names and e-mails that must not collide with another test's. */
export const unique = (): string => randomBytes(4).toString('hex');

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
