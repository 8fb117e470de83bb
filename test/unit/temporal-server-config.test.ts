/**
 * The production Temporal server (docker-compose.yml mounts deploy/temporal-dynamic-config.yaml)
 * runs with the dynamic configuration the embedded dev server is started with
 * (core/temporal/server-config.ts): priority order, fairness between accounts' webhook deliveries
 * and eager start hold on both, not only where the tests run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { devServerDynamicConfigArgs, SERVER_DYNAMIC_CONFIG } from '../../core/temporal/server-config.js';
import { repoRoot } from '../support/env.js';

const file = path.join(repoRoot, 'deploy/temporal-dynamic-config.yaml');

describe('Temporal dynamic configuration', () => {
  it('deploy/temporal-dynamic-config.yaml sets every key of SERVER_DYNAMIC_CONFIG to the same value, for every namespace and queue, and nothing else', () => {
    const deployed = parse(fs.readFileSync(file, 'utf8')) as Record<string, { value: unknown; constraints?: unknown }[]>;
    expect(Object.keys(deployed).sort()).toEqual(Object.keys(SERVER_DYNAMIC_CONFIG).sort());
    for (const [key, value] of Object.entries(SERVER_DYNAMIC_CONFIG)) {
      expect(deployed[key], key).toEqual([{ value }]);
    }
  });

  it('docker-compose.yml mounts that file as the server\'s dynamic config', () => {
    const compose = parse(fs.readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8')) as {
      services: { temporal: { environment: Record<string, string>; volumes: string[] } };
    };
    const { environment, volumes } = compose.services.temporal;
    const mounted = volumes.find((v) => v.startsWith('./deploy/temporal-dynamic-config.yaml:'));
    expect(mounted).toBeDefined();
    expect(mounted!.split(':')[1]).toBe(`/etc/temporal/${environment.DYNAMIC_CONFIG_FILE_PATH}`);
  });

  it('the dev server gets one --dynamic-config-value flag per key', () => {
    expect(devServerDynamicConfigArgs()).toEqual([
      '--dynamic-config-value', 'matching.numTaskqueueReadPartitions=1',
      '--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1',
      '--dynamic-config-value', 'matching.useNewMatcher=true',
      '--dynamic-config-value', 'matching.enableFairness=true',
      '--dynamic-config-value', 'system.enableEagerWorkflowStart=true',
    ]);
  });
});
