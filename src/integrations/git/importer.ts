import { spawn, execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { CommitInput, RepositoryRef } from '../../services/git/activity';

const run = promisify(execFile);

/** Why a clone cannot be read: the message says what to fix. */
export class CloneError extends Error {}

// One record per commit: RS, then sha, author, e-mail, committer date and message separated by US, then US and the
// --numstat lines. Neither separator occurs in git's own output.
const RS = '\x1e';
const US = '\x1f';
const FORMAT = `${RS}%H${US}%an${US}%ae${US}%cI${US}%B${US}`;

async function git(clone: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run('git', ['-C', clone, ...args], { maxBuffer: 1024 * 1024 });
    return stdout.trim();
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new CloneError('git is not installed (or not on PATH)');
    throw new CloneError(`git ${args[0]} failed in ${clone}: ${(e.stderr ?? e.message).trim().split('\n')[0]}`);
  }
}

/**
 * The repository a clone is of: `name` when given (`owner/repo`), else the path of its `origin` remote (so an
 * import and the provider's webhooks meet on one repository), else the directory's name.
 */
export async function repositoryOfClone(clone: string, name?: string): Promise<RepositoryRef> {
  // A bare clone (`git clone --bare`) is enough: only the history is read.
  if (!(await git(clone, ['rev-parse', '--git-dir']).catch(() => ''))) throw new CloneError(`${clone} is not a git repository`);
  const origin = await git(clone, ['remote', 'get-url', 'origin']).catch(() => '');
  const fullName = name ?? fullNameOfRemote(origin) ?? path.basename(path.resolve(clone));
  const branch = await git(clone, ['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => '');
  return {
    providerId: null,
    name: fullName.split('/').pop() || fullName,
    fullName,
    defaultBranch: branch || 'main',
    // A clone does not say; private until the provider says otherwise.
    isPrivate: true,
    createdAt: null,
  };
}

/** `git@github.com:acme/api.git`, `https://gitlab.com/group/sub/api.git`, `ssh://git@host:22/acme/api` → the path. */
export function fullNameOfRemote(url: string): string | undefined {
  const scp = /^[^@/]+@[^:/]+:(.+)$/.exec(url);
  let pathname = scp?.[1];
  if (!pathname) {
    try {
      pathname = new URL(url).pathname;
    } catch {
      return undefined;
    }
  }
  const cleaned = pathname.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '');
  return cleaned.includes('/') ? cleaned : undefined;
}

function parseRecord(record: string): CommitInput {
  const [sha, authorName, authorEmail, committedAt, message, numstat = ''] = record.split(US);
  let additions = 0;
  let deletions = 0;
  for (const line of numstat.split('\n')) {
    // `12\t3\tpath`; binary files show `-\t-\tpath` and count as no lines.
    const match = /^(\d+|-)\t(\d+|-)\t/.exec(line);
    if (!match) continue;
    additions += match[1] === '-' ? 0 : Number(match[1]);
    deletions += match[2] === '-' ? 0 : Number(match[2]);
  }
  return {
    sha,
    message: message.trim(),
    authorName,
    authorEmail: authorEmail || null,
    authorUsername: null,
    // The committer's date: when the change landed where it is, as the webhooks' `timestamp` means it.
    createdAt: new Date(committedAt),
    stats: { additions, deletions },
  };
}

/**
 * The commits reachable from the clone's HEAD, newest first, in batches, streamed from `git log --numstat` so a
 * history of any length is read in bounded memory.
 */
export async function* commitsOfClone(clone: string, batchSize = 500): AsyncGenerator<CommitInput[]> {
  if (!(await git(clone, ['rev-parse', '--verify', '--quiet', 'HEAD']).catch(() => ''))) throw new CloneError(`${clone} has no commits yet`);
  const child = spawn('git', ['-C', clone, 'log', '--no-color', '--numstat', `--format=${FORMAT}`, 'HEAD'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2000)));
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
  let pending = '';
  let batch: CommitInput[] = [];
  try {
    child.stdout.setEncoding('utf8');
    for await (const chunk of child.stdout as AsyncIterable<string>) {
      pending += chunk;
      const records = pending.split(RS);
      pending = records.pop()!;
      for (const record of records) {
        if (!record) continue;
        batch.push(parseRecord(record));
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
    if (pending) batch.push(parseRecord(pending));
    if (batch.length) yield batch;
    const code = await exited;
    if (code !== 0) throw new CloneError(`git log failed in ${clone}: ${stderr.trim().split('\n')[0]}`);
  } finally {
    if (child.exitCode === null) child.kill();
  }
}
