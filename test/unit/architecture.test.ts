/**
 * The layering of .dependency-cruiser.cjs (docs/architecture.md "Layering") holds over the whole
 * tree: dependency-cruiser reads every module of the source folders, type-only imports included,
 * and every import must obey every rule. `npm run lint:deps` prints the same verdicts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { beforeAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** The folders cruised: every folder of TypeScript the repository holds. */
const FOLDERS = ['api', 'core', 'worker', 'workflows', 'bench', 'replay', 'scripts', 'test', 'dashboard', 'clients'];
/** The rules docs/architecture.md describes; each must be in the configuration. */
const RULES = [
  'no-circular', 'core-domain-pure', 'workflows-deterministic', 'core-not-presentation', 'rest-and-graphql-independent', 'services-not-presentation',
  'api-not-worker', 'worker-not-api', 'db-made-in-core-db', 'parser-no-browser', 'bench-not-test', 'source-not-test', 'dashboard-standalone', 'server-not-dashboard',
  'mcp-presenter', 'sdk-standalone',
];

/** `rule: from → to` (a cycle as its whole path), one violation per line. */
function describeViolation(v: IViolation): string {
  const to = v.cycle?.length ? v.cycle.map((step) => step.name).join(' → ') : v.to;
  return `${v.rule.name}: ${v.from} → ${to}`;
}

describe('module layering (.dependency-cruiser.cjs)', () => {
  let result: ICruiseResult;
  let ruleNames: string[];

  beforeAll(async () => {
    const cwd = process.cwd();
    // dependency-cruiser names modules relative to the working directory, which the rules' paths assume.
    process.chdir(repoRoot);
    try {
      const options = await extractDepcruiseOptions(path.join(repoRoot, '.dependency-cruiser.cjs'));
      ruleNames = (options.ruleSet?.forbidden ?? []).map((rule) => rule.name ?? '');
      const tsConfig = extractTSConfig(path.join(repoRoot, 'tsconfig.json'));
      const output = await cruise(FOLDERS, { ...options, outputType: 'json' }, undefined, { tsConfig });
      result = (typeof output.output === 'string' ? JSON.parse(output.output) : output.output) as ICruiseResult;
    } finally {
      process.chdir(cwd);
    }
  }, 120_000);

  it('the configuration holds every rule of the target layering', () => {
    expect([...ruleNames].sort()).toEqual([...RULES].sort());
  });

  it('every relative import resolves (an unresolved one would escape every rule)', () => {
    const unresolved = result.modules.flatMap((m) =>
      m.dependencies.filter((d) => d.couldNotResolve && d.module.startsWith('.')).map((d) => `${m.source} → ${d.module}`),
    );
    expect(unresolved, unresolved.join('\n')).toEqual([]);
    expect(result.summary.totalCruised).toBeGreaterThan(100);
  });

  it('no module breaks a layering rule, and no import cycle exists', () => {
    const violations = result.summary.violations.map(describeViolation).sort();
    expect(violations, `${violations.length} layering violation(s):\n  ${violations.join('\n  ')}`).toEqual([]);
  });
});
