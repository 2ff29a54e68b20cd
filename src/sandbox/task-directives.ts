// Switches for the simulated video upstreams, written in the prompt: "[[sim fail]]",
// "[[sim duration=7 resolution=1080p]]", "[[sim status=paused]]", "[[sim queued_ms=0 running_ms=0]]",
// "[[sim reject]]" / "[[sim reject=429]]" (the submission is refused), "[[sim size=1792x1024]]",
// "[[sim bytes=8388608]]" (size of the generated file), "[[sim url_ttl_ms=0]]" (file URLs expire),
// "[[sim cut_bytes=65536]]" (a download breaks off).
export interface TaskBehaviour {
  fail?: boolean;
  noDuration?: boolean;
  noUrl?: boolean;
  /** A final status the platform does not know. */
  status?: string;
  duration?: number;
  resolution?: string;
  queuedMs?: number;
  runningMs?: number;
  /** Refuse the submission: 400, or the given status. */
  reject?: number;
  /** The delivered pixel size (OpenAI videos). */
  size?: string;
  /** Size of the generated file in bytes. */
  bytes?: number;
  /** How long a file URL stays valid. */
  urlTtlMs?: number;
  /** The file's connection breaks after this many bytes. */
  cutBytes?: number;
}

export function parseTaskDirectives(text: string): TaskBehaviour {
  const behaviour: TaskBehaviour = {};
  for (const match of text.matchAll(/\[\[sim ([^\]]*)\]\]/g)) {
    for (const token of (match[1] ?? '').trim().split(/\s+/)) {
      const [name, value] = token.split('=');
      if (name === 'fail') behaviour.fail = true;
      else if (name === 'no_duration') behaviour.noDuration = true;
      else if (name === 'no_url') behaviour.noUrl = true;
      else if (name === 'status' && value) behaviour.status = value;
      else if (name === 'duration' && value) behaviour.duration = Number(value);
      else if (name === 'resolution' && value) behaviour.resolution = value;
      else if (name === 'queued_ms' && value) behaviour.queuedMs = Number(value);
      else if (name === 'running_ms' && value) behaviour.runningMs = Number(value);
      else if (name === 'reject') behaviour.reject = value ? Number(value) : 400;
      else if (name === 'size' && value) behaviour.size = value;
      else if (name === 'bytes' && value) behaviour.bytes = Number(value);
      else if (name === 'url_ttl_ms' && value) behaviour.urlTtlMs = Number(value);
      else if (name === 'cut_bytes' && value) behaviour.cutBytes = Number(value);
    }
  }
  return behaviour;
}

export function textOf(node: unknown): string {
  if (typeof node === 'string') return node;
  if (Array.isArray(node)) return node.map(textOf).join(' ');
  if (node && typeof node === 'object') return Object.values(node).map(textOf).join(' ');
  return '';
}
