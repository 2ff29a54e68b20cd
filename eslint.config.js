// ESLint: typescript-eslint's recommended rules, the floating-promise checks that keep every
// hold's ending awaited or explicitly `void`, and the direction of imports between the layers
// (http -> domain -> tasks -> ledger / providers / catalogue -> db; test/unit/lint/layers.test.ts
// shows the zones fire). Formatting is Prettier's (`npm run lint` runs both).
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import local from './scripts/eslint-layers.js';

/** Folders under src/ (a layer, or a folder within one) that the given folder must not import (at run time or for types). */
const zone = (target, from, message) => ({ target, from, message });

export default defineConfig(
  { ignores: ['node_modules/', 'dist/', 'generated/', 'data/', 'bench/', 'coverage/'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    plugins: { local },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/no-explicit-any': 'off', // tests read loosely typed JSON bodies; src/ keeps its own discipline
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'local/layers': [
        'error',
        {
          root: import.meta.dirname,
          zones: [
            zone('domain', ['http'], 'The domain is transport-free: return values and write through domain/sink.ts.'),
            zone(
              'tasks',
              ['http', 'domain', 'jobs', 'sandbox', 'cli'],
              'The task engine runs every kind without knowing any: products register kinds (src/gateway.ts) and call the engine, never the reverse.',
            ),
            zone('domain/videos', ['domain/responses'], 'A task kind never imports another: what kinds share belongs in src/tasks.'),
            zone('domain/responses', ['domain/videos'], 'A task kind never imports another: what kinds share belongs in src/tasks.'),
            zone(
              'metrics',
              ['http', 'domain', 'tasks', 'holds', 'jobs'],
              'Metrics are fed by hooks and readers that src/gateway.ts hands them (the task gauges: src/tasks/gauges.ts); they import no feature.',
            ),
            zone('providers', ['http', 'domain', 'tasks'], 'Providers implement contracts they own; the domain depends on them, not the reverse.'),
            zone('sandbox', ['http', 'domain'], 'Simulators stand for real providers: they know nothing of the gateway.'),
            zone(
              'ledger',
              ['http', 'domain', 'providers', 'holds', 'jobs', 'tasks'],
              'The ledger (the book, SQL only) is below the domain and the holds runtime that calls it.',
            ),
            zone(
              'holds',
              ['http', 'domain', 'providers', 'tasks'],
              "The holds runtime (this process's holds, grants, lease, sweeper) calls the ledger's face; the domain calls it.",
            ),
            zone('catalogue', ['http', 'domain', 'providers', 'tasks'], 'The catalogue is below providers: gateway.ts gives it resolveProviders.'),
            zone('customers', ['http', 'domain', 'providers', 'tasks'], 'Customers are below the domain.'),
            zone('pricing', ['http', 'domain', 'providers', 'ledger', 'tasks'], 'Pricing is pure arithmetic over the catalogue.'),
            zone(
              'db',
              ['http', 'domain', 'providers', 'ledger', 'holds', 'catalogue', 'customers', 'pricing', 'jobs', 'tasks'],
              'The database layer knows no feature.',
            ),
            zone(
              'shared',
              ['http', 'domain', 'providers', 'ledger', 'holds', 'catalogue', 'customers', 'pricing', 'db', 'jobs', 'logs', 'metrics', 'sandbox', 'tasks'],
              'Shared helpers depend on nothing of ours.',
            ),
          ],
        },
      ],
      'no-restricted-imports': 'off',
    },
  },
  {
    // Files stay small (STYLE.md): past 250 lines a source file is split by what it does.
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 250 }] },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'node:http', message: 'The domain is transport-free.' },
            { name: 'node:https', message: 'The domain is transport-free.' },
          ],
        },
      ],
    },
  },
  {
    // The web console (browser code, checked by console/tsconfig.json): files stay small too.
    files: ['console/**/*.{ts,tsx}'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser },
    },
    rules: {
      'max-lines': ['error', { max: 250 }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' }, // chai's property assertions: expect(x).to.be.empty
  },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: { ...globals.node } }, ...tseslint.configs.disableTypeChecked },
  prettier,
);
