/**
 * deploy/covercheck.service and the settings file it reads, deploy/covercheck.env: systemd's own check
 * where systemd-analyze is installed, and what the unit must say for a stop to finish cleanly and for
 * the connector to sit behind deploy/Caddyfile. systemd itself cannot run in the test.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { EnvSchema, loadConfig } from '../../connector/src/config.js';
import { parseEnvFile, parseUnit, readDeployFile as read } from './deploy-files.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

const unit = parseUnit(read('deploy/covercheck.service'));
const service = unit.Service!;
const env = parseEnvFile(read('deploy/covercheck.env'));
const one = (key: string) => {
  expect(service[key], key).toHaveLength(1);
  return service[key]![0]!;
};

describe('deploy/covercheck.service', () => {
  it("passes systemd-analyze verify with no warning (where systemd's tools are installed)", async () => {
    const analyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => fs.existsSync(p));
    if (!analyze) return;
    const { stdout, stderr } = await promisify(execFile)(analyze, ['verify', path.join(ROOT, 'deploy/covercheck.service')]);
    expect(stdout + stderr).toBe('');
  });

  it('runs as its own user with the settings file, restarts on failure, and stops with SIGTERM given longer than COVERCHECK_SHUTDOWN_MS', () => {
    expect(one('User')).toBe('covercheck');
    expect(one('EnvironmentFile')).toBe('/etc/covercheck/covercheck.env');
    expect(one('Restart')).toBe('on-failure');
    expect(one('KillSignal')).toBe('SIGTERM');
    // The connector ends its extraction process itself; a signal from systemd too would cut it short.
    expect(one('KillMode')).toBe('mixed');
    const shutdownMs = loadConfig(env).shutdownMs;
    expect(shutdownMs).toBe(Number(env.COVERCHECK_SHUTDOWN_MS));
    // Closing the store and the log after the work's deadline takes a moment more: at least 5 s of margin.
    expect(Number(one('TimeoutStopSec')) * 1000).toBeGreaterThanOrEqual(shutdownMs + 5_000);
    expect(unit.Install?.WantedBy).toEqual(['multi-user.target']);
  });

  it('starts the build as npm start does, without npm in between', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start!;
    const [, vars, command] = /^((?:\w+=\S+ )*)node (.+)$/.exec(start) ?? [];
    expect(command, start).toBeDefined();
    expect(one('ExecStart')).toBe(`/usr/bin/node ${command}`);
    expect(service.Environment ?? []).toEqual(vars!.trim().split(' ').filter(Boolean));
    expect(one('WorkingDirectory')).toBe('/opt/covercheck');
  });

  it('keeps its state where the settings file puts the store and the mail outbox', () => {
    expect(one('StateDirectory')).toBe('covercheck');
    expect(path.dirname(env.COVERCHECK_DB!)).toBe('/var/lib/covercheck');
    expect(path.dirname(env.COVERCHECK_MAIL_OUTBOX!)).toBe('/var/lib/covercheck');
  });
});

describe('deploy/covercheck.env', () => {
  it('sets only variables config.ts reads, and they load', () => {
    expect(Object.keys(env).filter((name) => !(name in EnvSchema.shape))).toEqual([]);
    expect(() => loadConfig(env)).not.toThrow();
  });

  it("listens on loopback on the port deploy/Caddyfile forwards to, and trusts only a loopback proxy's X-Forwarded-For", () => {
    const config = loadConfig(env);
    expect(config.host).toBe('127.0.0.1');
    expect(read('deploy/Caddyfile')).toMatch(new RegExp(`^\\s*reverse_proxy 127\\.0\\.0\\.1:${config.port}$`, 'm'));
    expect(config.trustProxy).toBe('loopback');
    expect(config.portal.publicUrl).toMatch(/^https:\/\//);
  });
});
