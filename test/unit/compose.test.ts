/**
 * docker-compose.yml describes a valid production topology (issue: runs at scale) that exposes
 * nothing without authentication and takes its secrets from an uncommitted `.env`. No container
 * engine runs here, so the file is validated and resolved with Debian's docker-compose
 * (`config`), which the bootstrap in front of `npm test` installs, in a scratch project directory whose `.env` is
 * `.env.example` with its secrets filled in.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI_TYPE_NAMES, SEARCH_ATTRIBUTES } from '../../core/domain/operator-view.js';
import { repoRoot } from '../support/env.js';
import { LOCAL_CHROMIUM_ARGS } from '../../worker/browser/browser-slot.js';
import { describeNeeding, dockerCompose } from '../support/prerequisites.js';

const compose = dockerCompose.path;
const file = path.join(repoRoot, 'docker-compose.yml');
const run = promisify(execFile);

/** Secret values of the scratch `.env`: each must reach exactly the services that need it. */
const SECRETS = { POSTGRES_PASSWORD: 'pg-secret-4f1c', BROWSERLESS_TOKEN: 'grid-token-9d2e' };

interface Service {
  ports?: unknown[];
  environment?: Record<string, string>;
  command?: string[];
  entrypoint?: string[];
  image?: string;
  depends_on?: Record<string, { condition: string }>;
}

describeNeeding([dockerCompose], 'docker-compose.yml', () => {
  let projectDir: string;

  /** `docker-compose config` of the file with `env` as the project's `.env`. */
  async function config(env: string, args: string[] = []): Promise<string> {
    fs.writeFileSync(path.join(projectDir, '.env'), env);
    const { stdout } = await run(compose!, ['-f', file, '--project-directory', projectDir, 'config', ...args]);
    return stdout;
  }

  /** `.env.example` with every empty secret filled in. */
  function filledEnv(): string {
    let text = fs.readFileSync(path.join(repoRoot, '.env.example'), 'utf8');
    for (const [name, value] of Object.entries(SECRETS)) text = text.replace(new RegExp(`^${name}=.*$`, 'm'), `${name}=${value}`);
    return text;
  }

  beforeAll(() => {
    projectDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rda-compose-'));
  });
  afterAll(() => {
    fs.rmSync(projectDir, { recursive: true, force: true });
  });

  it('validates and has every service of the topology', async () => {
    const services = (parse(await config(filledEnv())) as { services: Record<string, Service> }).services;
    expect(Object.keys(services).sort()).toEqual(['api', 'chrome', 'migrate', 'postgres', 'temporal', 'temporal-search-attributes', 'temporal-ui', 'worker']);
    expect(services.api!.command).toContain('dist/api/server.js');
    expect(services.worker!.command).toContain('dist/worker/main.js');
  });

  it('registers every search attribute of the operators\' view in a one-shot step that the api and workers wait for', async () => {
    const services = (parse(await config(filledEnv())) as { services: Record<string, Service> }).services;
    const step = services['temporal-search-attributes']!;
    expect(step.image).toBe(services.temporal!.image); // the same server version's CLI
    const script = [...(step.entrypoint ?? []), ...(step.command ?? [])].join(' ');
    expect(script).toContain('temporal operator search-attribute create --address temporal:7233 --namespace default');
    const listed = /for attribute in ([^;]+);/.exec(script)![1]!.trim().split(/\s+/);
    expect(listed).toEqual(Object.values(SEARCH_ATTRIBUTES).map(({ name, type }) => `${name}=${CLI_TYPE_NAMES[type]}`));
    for (const name of ['api', 'worker']) expect(services[name]!.depends_on!['temporal-search-attributes'], name).toEqual({ condition: 'service_completed_successfully' });
    // auto-setup's sample attributes would take Int columns of the SQL visibility store that ours need.
    expect(services.temporal!.environment!.SKIP_ADD_CUSTOM_SEARCH_ATTRIBUTES).toBe('true');
  });

  it('publishes only the API: PostgreSQL, Temporal, its Web UI and the browser grid have no ports', async () => {
    const services = (parse(await config(filledEnv())) as { services: Record<string, Service> }).services;
    const published = Object.entries(services).filter(([, s]) => (s.ports ?? []).length > 0).map(([name]) => name);
    expect(published).toEqual(['api']);
  });

  it('takes every secret from .env: none is written in the file, the grid requires its token', async () => {
    const raw = parse(fs.readFileSync(file, 'utf8'), { merge: true }) as { services: Record<string, Service> };
    for (const [service, { environment = {} }] of Object.entries(raw.services)) {
      for (const [name, value] of Object.entries(environment)) {
        if (/PASSWORD|PWD|TOKEN|SECRET/.test(name)) expect(value, `${service}.${name}`).toMatch(/^\$\{[A-Z_]+:\?[^}]*\}$/);
      }
    }
    // docker-compose v1 inlines `env_file` into `environment`: a setting of .env shows its arrival.
    const services = (parse(await config(`${filledEnv()}\nPUBLIC_BASE_URL=https://api.example.com\n`)) as { services: Record<string, Service> }).services;
    expect(services.postgres!.environment!.POSTGRES_PASSWORD).toBe(SECRETS.POSTGRES_PASSWORD);
    expect(services.temporal!.environment!.POSTGRES_PWD).toBe(SECRETS.POSTGRES_PASSWORD);
    expect(services.chrome!.environment!.TOKEN).toBe(SECRETS.BROWSERLESS_TOKEN);
    for (const name of ['api', 'worker', 'migrate']) {
      const service = services[name]!;
      expect((raw.services[name] as { env_file?: string }).env_file, name).toBe('.env');
      expect(service.environment!.PUBLIC_BASE_URL, name).toBe('https://api.example.com');
      expect(service.environment!.DATABASE_URL, name).toBe(`postgresql://retail:${SECRETS.POSTGRES_PASSWORD}@postgres:5432/retail`);
      const endpoint = new URL(service.environment!.BROWSER_WS_ENDPOINTS!);
      expect(`${endpoint.protocol}//${endpoint.host}`, name).toBe('ws://chrome:3000');
      expect(endpoint.searchParams.get('token'), name).toBe(SECRETS.BROWSERLESS_TOKEN);
      // The grid's Chromium gets the local one's site-isolation flag (browserless's `launch` JSON).
      expect(JSON.parse(endpoint.searchParams.get('launch')!).args, name).toEqual(['--disable-site-isolation-trials']);
      expect(LOCAL_CHROMIUM_ARGS).toContain('--disable-site-isolation-trials');
    }
  });

  it('refuses to resolve while a secret is missing, naming it', async () => {
    for (const name of Object.keys(SECRETS)) {
      const env = filledEnv().replace(new RegExp(`^${name}=.*$`, 'm'), `${name}=`);
      await expect(config(env, ['-q'])).rejects.toThrow(new RegExp(`set ${name} in \\.env`));
    }
  });

  it('.env is never committed', async () => {
    const { stdout } = await run('git', ['check-ignore', '.env'], { cwd: repoRoot });
    expect(stdout.trim()).toBe('.env');
  });
});
