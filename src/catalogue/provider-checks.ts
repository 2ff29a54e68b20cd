// What a provider entry needs beyond its schema, by protocol. Vertex Veo writes its videos to the
// operator's bucket: without `storage_uri` it would answer them inline as Base64 (large, and the
// gateway keeps no artifacts), so such an entry is refused here rather than at the first task.
import type { ProviderEntry } from './types.ts';

/** `https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}`: a location's resource prefix. */
const VERTEX_LOCATION_ROOT = /\/v1\/projects\/[^/]+\/locations\/[^/]+\/?$/;

export function providerProblems(provider: ProviderEntry, index: number): string[] {
  const where = `providers.${index} (${provider.id})`;
  const problems: string[] = [];
  if (provider.protocol === 'vertex-gemini' && provider.base_url && !VERTEX_LOCATION_ROOT.test(new URL(provider.base_url).pathname))
    problems.push(`${where}.base_url: a vertex-gemini base_url ends in /v1/projects/{project}/locations/{location}`);
  if (provider.protocol === 'vertex-veo') {
    if (!provider.storage_uri)
      problems.push(
        `${where}: a vertex-veo provider needs storage_uri (gs://bucket/prefix/): Veo writes the videos to the operator's bucket, ` +
          'and inline Base64 output is not supported (the gateway keeps no artifacts)',
      );
    if (provider.base_url && !VERTEX_LOCATION_ROOT.test(new URL(provider.base_url).pathname))
      problems.push(`${where}.base_url: a vertex-veo base_url ends in /v1/projects/{project}/locations/{location}`);
  } else {
    if (provider.storage_uri !== undefined) problems.push(`${where}.storage_uri: only vertex-veo providers write to a bucket`);
    if (provider.storage_base_url !== undefined) problems.push(`${where}.storage_base_url: only vertex-veo providers read from a bucket`);
  }
  return problems;
}
