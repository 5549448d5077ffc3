/** Child processes of the benchmark: one-shot commands, and the two servers it must never leave behind. */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

/**
 * The heap flags `npm start` gives Node (package.json's `config.nodeFlags`), for every process the benchmark runs as
 * the service runs it: the API, and the operator's CLIs that do the service's own background work (`npm run import`).
 * V8 left alone lets a busy process grow to several times its live heap in garbage it has not yet collected.
 */
export const serviceNodeFlags = (): string[] => (process.env.npm_package_config_nodeFlags ?? '').split(' ').filter(Boolean);

/**
 * Runs a command to completion (in `cwd`, else here). Its output goes to our stderr (progress), or is returned when
 * `capture` is set, so stdout stays the report alone. `onSpawn` is told its pid (to sample its memory).
 */
export function run(cmd: string, args: string[], opts: { env?: Record<string, string>; capture?: boolean; cwd?: string; onSpawn?: (pid: number) => void } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', opts.capture ? 'pipe' : 2, opts.capture ? 'pipe' : 2],
    });
    if (child.pid !== undefined) opts.onSpawn?.(child.pid);
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve(out);
      else reject(new Error(`"${cmd} ${args.join(' ')}" failed (${signal ?? `exit ${code}`})${err ? `:\n${err.trim()}` : ''}`));
    });
  });
}

/** A port nobody listens on right now (the OS picks it), so parallel runs and running servers do not clash. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Server {
  name: string;
  pid: number;
  url: string;
  child: ChildProcess;
  /** The last lines it printed: shown when it dies, since its logs are not streamed. */
  tail(): string;
}

const live = new Set<ChildProcess>();

export function startServer(name: string, cmd: string, args: string[], port: number, env: Record<string, string>): Server {
  // `node` itself (not npm or tsx in between): the pid is the server's, for /proc/<pid>/status and for kill.
  const child = spawn(cmd, args, { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.on('exit', () => live.delete(child));
  const lines: string[] = [];
  const keep = (d: Buffer) => {
    // Clipped: a JSON log line with a stack would bury the message that says what went wrong.
    lines.push(...d.toString().split('\n').filter(Boolean).map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l)));
    lines.splice(0, Math.max(0, lines.length - 12));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { name, pid: child.pid!, url: `http://127.0.0.1:${port}`, child, tail: () => lines.join('\n') };
}

/** Waits until GET /healthz answers 200; fails early, with its output, if the server exits first. */
export async function waitHealthy(server: Server, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new Error(`${server.name} exited during start-up:\n${server.tail()}`);
    }
    const ok = await fetch(`${server.url}/healthz`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${server.name} did not answer ${server.url}/healthz within ${timeoutMs / 1000} s:\n${server.tail()}`);
}

/**
 * How a server ended, as the report names it (its signal, or its exit code); undefined while it runs. A code 0 is
 * a stop asked from outside: the API exits 0 only after SIGTERM or SIGINT.
 */
export function howExited(server: Server): string | undefined {
  const { exitCode, signalCode } = server.child;
  if (exitCode === null && signalCode === null) return undefined;
  return signalCode ?? `code ${exitCode}${exitCode === 0 ? ', i.e. it was sent SIGTERM or SIGINT from outside' : ''}`;
}

/** SIGTERM, then SIGKILL if it is still there after `graceMs` (the API drains before it stops). */
export async function stopServer(server: Server, graceMs = 5_000): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Last resort on process exit (synchronous: no awaiting is possible there). */
export function killAllNow(): void {
  for (const child of live) child.kill('SIGKILL');
}

/** Resident memory of a process in MB, from /proc (Linux only; undefined elsewhere or once it is gone). */
export function rssMb(pid: number): number | undefined {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time a process has used so far (user + system), in ms, from /proc (Linux only; undefined elsewhere). */
export function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** A process and its children (a cluster's primary and its workers), from /proc (Linux only). */
export function processTree(pid: number): number[] {
  const children = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).filter((e) => {
    try {
      return Number(fs.readFileSync(`/proc/${e}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === pid;
    } catch {
      return false; // gone meanwhile
    }
  });
  return [pid, ...children.map(Number)];
}

/** USER_HZ, 100 on every Linux this runs on (sysconf is not reachable from Node). */
const CLOCK_TICKS_PER_SECOND = 100;

/** The database server's process on this machine, when there is one (mariadbd or mysqld). */
export function databasePid(): number | undefined {
  for (const entry of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      if (/^(mariadbd|mysqld)$/.test(fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** Samples a process's RSS every `everyMs` while a run is under way; keeps the peak. */
export function sampleRss(pid: number, everyMs = 250) {
  let peak = rssMb(pid) ?? 0;
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid) ?? 0)), everyMs);
  timer.unref();
  return {
    peak: () => peak,
    stop: () => clearInterval(timer),
  };
}
