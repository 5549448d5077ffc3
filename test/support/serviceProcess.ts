import path from 'node:path';
import { ChildProcess, spawn } from 'node:child_process';
import { builtFile } from './cli';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The service as deployed: a process of its own (`src/main.ts`), on a port of 127.0.0.1 that the system gives it and
 * its log names. A port picked beforehand could be taken meanwhile by another test file's server, whose answers
 * (another database) would then be taken for this one's.
 */
export interface ServiceProcess {
  name: string;
  process: ChildProcess;
  origin: string;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/**
 * Starts the service with `env` over this process's environment (PORT 0, HOST 127.0.0.1, info logs: the port is read
 * from its "listening" line); resolves once it listens. What it printed is in the error if it does not within 30 s.
 */
export async function startServiceProcess(name: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [builtFile('src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const origin = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${buffered}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const port = /"port":(\d+).*"msg":"platform API listening"/.exec(buffered)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
      }
      // Only the start matters: a long-running instance's logs are not kept.
      if (buffered.length > 100_000) buffered = buffered.slice(-10_000);
    });
    child.stderr!.on('data', (chunk: Buffer) => (buffered += chunk.toString()));
  });
  return { name, process: child, origin, exited };
}

/** Ends every process at once (SIGKILL: no goodbye) and waits until they are gone. */
export async function killServiceProcesses(instances: ServiceProcess[]): Promise<void> {
  for (const instance of instances) instance.process.kill('SIGKILL');
  await Promise.all(instances.map((i) => i.exited));
}
