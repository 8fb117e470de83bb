import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'prisma/generated/**', 'data/**', '.tools/**', 'scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The dashboard runs in the browser (dashboard/README.md).
    files: ['dashboard/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Tests read loosely typed JSON responses.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Workflows run in Temporal's deterministic sandbox: no Node built-ins, no database,
    // no browser, and every promise awaited (samples hello-world/.eslintrc.js). Which folders a
    // workflow may import at all is a rule of .dependency-cruiser.cjs (workflows-deterministic).
    files: ['workflows/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      'no-restricted-imports': ['error', {
        paths: nodeBuiltins.map((name) => ({ name, message: 'Workflows must be deterministic: no Node built-ins.' })),
        patterns: [
          { group: ['**/prisma/**', '@prisma/*', 'puppeteer-core', 'jsdom', 'pg'], message: 'Workflows reach the outside world only through activities.' },
          { group: ['**/worker/**'], message: 'Workflows declare the activities they call in workflows/activity-contract.ts; the worker implements it.' },
          { regex: '(^|/)core/(?!domain/)', message: 'Workflows import only pure core/domain modules.' },
        ],
      }],
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
);
