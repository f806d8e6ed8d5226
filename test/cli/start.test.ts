/** The quick start: the built connector starts on a fresh database, prints a sandbox key that works. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDbPath } from '../helpers/server.js';

const db = tempDbPath('start');
/** Every connector started here, from the moment it is spawned: a test that fails or times out halfway leaves none running. */
const started: ChildProcess[] = [];

afterAll(async () => {
  for (const proc of started) {
    if (proc.exitCode !== null || proc.signalCode !== null) continue;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  }
  fs.rmSync(path.dirname(db), { recursive: true, force: true });
});

async function startOnce(): Promise<{ url: string; key: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, ['dist/connector/main.js'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', COVERCHECK_DB: db, COVERCHECK_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(proc);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no sandbox key printed:\n${out}`)), 20_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const key = /Sandbox key[^:]*: (pk_test_\S+)/.exec(out)?.[1];
      const url = /Covercheck connector on (http:\S+)/.exec(out)?.[1];
      if (key && url) {
        clearTimeout(timer);
        resolve({ url, key, proc });
      }
    });
    proc.on('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
}

describe('npm start', () => {
  it('builds, starts with demo data, prints a working sandbox key, logs one JSON line per request without the key, stops on SIGTERM', async () => {
    await promisify(execFile)('npm', ['run', 'build', '--silent']);
    const { url, key, proc } = await startOnce();
    let logs = '';
    proc.stdout!.on('data', (d: Buffer) => (logs += d.toString()));
    const res = await fetch(`${url}/api/v1/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'verified', credits_charged: 0 });
    await new Promise((r) => setTimeout(r, 200));
    const jsonLines = logs
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    const line = jsonLines.find((l) => l.url === '/api/v1/verify');
    expect(line).toMatchObject({ method: 'POST', status: 200, key_id: expect.stringMatching(/^key_/), msg: 'request completed' });
    expect(logs).not.toContain(key);
    expect(logs).not.toContain(key.slice(8, 20));

    // Extraction from the build: a scan goes to the extraction process (its own bundle entry) and back.
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync('test/fixtures/policies/001.pdf')], { type: 'application/pdf' }), '001.pdf');
    const upload = await fetch(`${url}/api/v1/documents/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expect(upload.status).toBe(202);
    const { job_id } = (await upload.json()) as { job_id: string };
    let job: { status: string; result?: { policy_number?: string } } = { status: 'pending' };
    for (let i = 0; i < 150 && job.status === 'pending'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      job = (await (await fetch(`${url}/api/v1/jobs/${job_id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as typeof job;
    }
    const truth = JSON.parse(fs.readFileSync('test/fixtures/policies/001.json', 'utf8')) as { kind: string; policy_number: string };
    expect(truth.kind).toBe('scanned');
    expect(job.status).toBe('complete');
    expect(job.result?.policy_number).toBe(truth.policy_number);
    const children = fs.readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    expect(children.length).toBe(1);

    const exited = new Promise<number | null>((r) => proc.on('exit', r));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The extraction process ended with the connector.
    for (const pid of children) expect(() => process.kill(pid, 0)).toThrow();
    // A build, a start and an OCR'd scan: about 15 s on a quiet machine, twice that with the machine shared.
  }, 120_000);
  it('a second start on the same database prints a new key and revokes the previous one', async () => {
    const first = await startOnce();
    first.proc.kill('SIGTERM');
    await new Promise((r) => first.proc.on('exit', r));
    const second = await startOnce();
    expect(second.key).not.toBe(first.key);
    const old = await fetch(`${second.url}/api/v1/account`, { headers: { authorization: `Bearer ${first.key}` } });
    expect(old.status).toBe(401);
    const fresh = await fetch(`${second.url}/api/v1/account`, { headers: { authorization: `Bearer ${second.key}` } });
    expect(fresh.status).toBe(200);
  });
});
