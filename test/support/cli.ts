import path from 'node:path';
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { DatabaseOptions } from '../../db/connection';
import type { TestApp } from './harness';

const ROOT = path.resolve(__dirname, '..', '..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The built file of a source of this checkout (`src/main.ts` → dist/src/main.js), which jest's global setup builds
 * before any test, as `npm start` does: tests that start the service or a script as a process run it from there.
 */
export function builtFile(source: string): string {
  return path.join(ROOT, 'dist', source.replace(/\.ts$/, '.js'));
}

/**
 * An operator CLI (scripts/<name>.ts) run as a child process, as `npm run <name> -- ...` runs it, on the given
 * database (its DATABASE_URL or SQLITE_PATH is passed in the child's environment). It runs the build jest's global
 * setup made of this checkout (dist/, as `npm start` runs the service): the same esbuild output tsx makes of each
 * file, loaded in under half the time tsx's loader takes (about 0.9 s against 2 s a command), which over a run's
 * few hundred commands is minutes.
 */
export function runScript(script: string, database: DatabaseOptions, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [builtFile(`scripts/${script}.ts`), ...args], { cwd: ROOT, env: scriptEnv(database, env), timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A script started as runScript runs it, kept in hand: a test waits for what it says and signals it midway. */
export interface RunningScript {
  child: ChildProcess;
  /** Resolves once its stderr so far matches. */
  saidOnStderr(pattern: RegExp): Promise<void>;
  /** Its exit code (128 + the signal's number when a signal ended it) and all it wrote. */
  ended: Promise<CliRun>;
}

export function startScript(script: string, database: DatabaseOptions, args: string[], env: NodeJS.ProcessEnv = {}): RunningScript {
  const child = spawn(process.execPath, [builtFile(`scripts/${script}.ts`), ...args], { cwd: ROOT, env: scriptEnv(database, env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiting: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const w of waiting.filter((w) => w.pattern.test(stderr))) w.resolve();
  });
  const ended = new Promise<CliRun>((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? 128 + (signal ? constants.signals[signal] : 0), stdout, stderr })),
  );
  const saidOnStderr = (pattern: RegExp) =>
    pattern.test(stderr)
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          waiting.push({ pattern, resolve });
          void ended.then((run) => reject(new Error(`the script ended (${run.code}) without saying ${pattern} on stderr:\n${run.stderr}`)));
        });
  return { child, saidOnStderr, ended };
}

function scriptEnv(database: DatabaseOptions, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ...env };
  delete childEnv.DATABASE_URL;
  delete childEnv.SQLITE_PATH;
  if (database.url) childEnv.DATABASE_URL = database.url;
  else childEnv.SQLITE_PATH = database.sqlitePath;
  return childEnv;
}

/** The test app's database, and its secrets key (MySQL runs have one in the config; SQLite a key file beside the database). */
export function appCli(t: TestApp, script: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const { database, env } = appScriptOptions(t, extraEnv);
  return (...args: string[]) => runScript(script, database, args, env);
}

/** As appCli, each command kept in hand while it runs (startScript). */
export function appCliStarted(t: TestApp, script: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const { database, env } = appScriptOptions(t, extraEnv);
  return (...args: string[]) => startScript(script, database, args, env);
}

function appScriptOptions(t: TestApp, extraEnv: NodeJS.ProcessEnv) {
  const database = { url: t.config.DATABASE_URL, sqlitePath: t.config.SQLITE_PATH };
  const env = { ...(t.config.SECRETS_KEY ? { SECRETS_KEY: t.config.SECRETS_KEY.toString('hex') } : {}), ...extraEnv };
  return { database, env };
}
