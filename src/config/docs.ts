// The configuration table of docs/configuration.md, rendered from the schema so the two cannot
// drift: `npm run docs:config` rewrites it between its markers, and test/unit/config/env.test.ts
// fails when the committed document differs.
import { DEFAULT_SHOWN, ENV_SCHEMA, type EnvName } from './env.ts';

export const TABLE_START = '<!-- config-table:start (npm run docs:config) -->';
export const TABLE_END = '<!-- config-table:end -->';

export function renderConfigTable(): string {
  const rows = (Object.keys(ENV_SCHEMA) as EnvName[]).map((name) => {
    const spec = ENV_SCHEMA[name] as { default?: unknown; desc?: string };
    const shown = DEFAULT_SHOWN[name] ?? (spec.default === undefined ? 'unset' : `\`${String(spec.default)}\``);
    return `| \`${name}\` | ${shown} | ${(spec.desc ?? '').replace(/\|/g, '\\|')} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The document with its table section replaced by the current rendering. */
export function withConfigTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start === -1 || end < start) throw new Error(`docs/configuration.md has no ${TABLE_START} ... ${TABLE_END} section`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${renderConfigTable()}\n${readme.slice(end)}`;
}
