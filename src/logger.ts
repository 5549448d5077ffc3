import pino from 'pino';

/** Structured JSON logs; authorization headers and cookies are redacted so secrets never reach them. */
export function createLogger(level: string) {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'token', '*.token'],
      censor: '[redacted]',
    },
  });
}

export type Logger = ReturnType<typeof createLogger>;
