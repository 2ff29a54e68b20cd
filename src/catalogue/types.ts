// The catalogue file's shape (catalogue.sample.yaml documents every field; the JSON Schema in
// catalogue.schema.json is what validates it).
import type { EgressProxy } from '../shared/egress-proxy.ts';

export type ModelGroup = 'messages' | 'chat' | 'responses' | 'gemini' | 'video';
export type ProviderProtocol =
  | 'anthropic'
  | 'openai-chat'
  | 'openai-responses'
  | 'gemini'
  | 'vertex-gemini'
  | 'openai-videos'
  | 'ark-video'
  | 'minimax-video-v2'
  | 'dashscope-video'
  | 'kling-video'
  | 'vertex-veo';
/** The Gemini API: Google AI Studio's (an API key) and Vertex AI's (a service account). */
export const GEMINI_PROTOCOLS: ReadonlySet<ProviderProtocol> = new Set(['gemini', 'vertex-gemini']);
export const VIDEO_PROTOCOLS: ReadonlySet<ProviderProtocol> = new Set([
  'openai-videos',
  'ark-video',
  'minimax-video-v2',
  'dashscope-video',
  'kling-video',
  'vertex-veo',
]);

export interface ProviderTimeouts {
  connect_ms?: number;
  /** Until the response headers of a streamed request. */
  first_byte_ms?: number;
  /** Until the response headers of a non-streamed request (sent when the whole answer is done). */
  response_ms?: number;
  /** Longest silence between two chunks of a body. */
  idle_ms?: number;
}

export interface ProviderEntry {
  id: string;
  protocol: ProviderProtocol;
  /** Absent for sandbox providers, whose simulator's loopback URL is filled in at start. */
  base_url?: string;
  /** Name of the environment variable holding the credential; the value is never in the file. */
  credential_env?: string;
  /** Served by the gateway's own simulated upstream, only in sandbox mode. */
  sandbox?: boolean;
  timeouts?: ProviderTimeouts;
  /** vertex-veo (required there): the operator's Cloud Storage folder the videos are written to, `gs://bucket/prefix/`. */
  storage_uri?: string;
  /** vertex-veo, optional: the Cloud Storage JSON API root the videos are read back through (default https://storage.googleapis.com/storage/v1). */
  storage_base_url?: string;
  /** Video providers: tasks the account may run at once (every key of the account shares it); more wait in the gateway's queue. */
  max_concurrent_tasks?: number;
  /** Video providers: how long a task may wait in the gateway's queue before it fails with its hold released (default 21600, 6 h). */
  max_queue_wait_seconds?: number;
}

/** How the gateway queues a video provider's tasks (see src/tasks/queue.ts and refusals.ts). */
export interface ProviderQueue {
  /** Undefined: no limit of ours (the provider's own refusals still queue tasks). */
  maxConcurrent: number | undefined;
  maxWaitMs: number;
}

/** How long a task may wait in the gateway's queue unless its provider says otherwise. */
export const DEFAULT_MAX_QUEUE_WAIT_SECONDS = 6 * 3600;

export interface RouteEntry {
  provider: string;
  /** The provider's name for the model; defaults to the part of the public id after the slash. */
  upstream_model?: string;
  /** Lower is tried first. */
  priority?: number;
}

export interface FreeQuota {
  amount: number;
  unit: 'tokens' | 'seconds' | 'requests';
  period: 'day' | 'month';
}

/** Decimal strings in the catalogue currency per million tokens (per thousand requests for tools). */
export interface TokenPrice {
  input_per_mtok: string;
  output_per_mtok: string;
  cache_read_per_mtok?: string;
  /** 5-minute cache writes (and all cache writes when no 1-hour price is set). */
  cache_write_per_mtok?: string;
  cache_write_1h_per_mtok?: string;
  web_search_per_1k_requests?: string;
  web_fetch_per_1k_requests?: string;
  /**
   * Premiums (or discounts) as decimal multipliers of the token prices, e.g. {fast: "6", priority:
   * "1.25", flex: "0.5"}: `fast` is Anthropic's fast mode; `priority` and `flex` are the service
   * tiers an OpenAI answer reports (`service_tier`), `ultrafast` the Responses API's fastest tier.
   */
  multipliers?: { fast?: string; priority?: string; flex?: string; ultrafast?: string };
  /**
   * Long-context prices: a request whose reported input (input + cache writes + cache reads) is
   * strictly above a tier's threshold is priced, every token line of it, at that tier (the last
   * one it passes). Thresholds strictly increase. src/pricing/tiers.ts applies them.
   */
  tiers?: PriceTier[];
}

/**
 * One long-context step. A cache price left out follows the tier's input step: the base cache
 * price x (tier input / base input), rounded up to the micro-unit; where the base has none
 * either, it defaults as the base does (cache prices to input's, 1-hour writes to cache writes').
 * Server tool requests and multipliers keep the base prices.
 */
export interface PriceTier {
  /** Whole tokens; the tier applies above it, never at it. */
  above_input_tokens: number;
  input_per_mtok: string;
  output_per_mtok: string;
  cache_read_per_mtok?: string;
  cache_write_per_mtok?: string;
  cache_write_1h_per_mtok?: string;
}

/** Decimal strings per delivered second, keyed by resolution tier. */
export interface VideoPrice {
  per_second: Record<string, string>;
}

/** A pixel size a video model accepts as `size`, with the priced tier and the ratio it stands for. */
export interface VideoSizeEntry {
  resolution: string;
  ratio: string;
}

/**
 * What a video model takes. Every option a caller may set is listed here, or refused with 400:
 * nothing is dropped on the way to the provider. What each protocol can express at all is in
 * video-protocols.ts (load.ts checks the two agree).
 */
export interface VideoSpec {
  seconds: number[];
  cancellable: boolean;
  /** Whether `data:` URLs are accepted in content items, and up to how many bytes. */
  inline_base64: boolean | { max_bytes: number };
  content_types: Array<'text' | 'image_url' | 'video_url' | 'audio_url'>;
  reference_images?: { max: number };
  /**
   * Models taking video_url inputs: the seconds of one reference video the hold counts when the
   * request declares none (providers bill input video seconds, DashScope and MiniMax among them).
   * Default: the model's longest output (`seconds`).
   */
  reference_video_seconds?: number;
  /** `generate_audio` is accepted (the provider has a sound switch). Default false: refused. */
  audio?: boolean;
  /** `watermark` is accepted. Default false: refused. */
  watermark?: boolean;
  /** Accepted `ratio` values, sent as the provider's own. Absent: `ratio` is refused (size-only protocols take the ratios of `sizes`). */
  ratios?: string[];
  /** Accepted `size` values ("1280x720"), each a priced tier and a ratio. Absent: `size` is refused. */
  sizes?: Record<string, VideoSizeEntry>;
}

/**
 * Input tokens one media block is held at, by kind (image, document, file, audio), where a model's
 * provider bills them otherwise than its protocol's defaults (src/domain/passthrough/media.ts).
 */
export interface MediaTokensEntry {
  image?: number;
  document?: number;
  file?: number;
  audio?: number;
}

/** Another name a model answers to; in /v1/models only when `listed`. */
export type AliasEntry = string | { name: string; listed?: boolean };

export interface ModelEntry {
  id: string;
  /** Names resolved to this model before routing; billed and logged under `id`. */
  aliases?: AliasEntry[];
  /**
   * Glob patterns of names it answers to (`claude-opus-*`): `*` any run of characters, `?` one.
   * After exact ids and aliases; the most specific pattern wins (src/catalogue/names.ts).
   */
  patterns?: string[];
  group: ModelGroup;
  display_name?: string;
  /** Unlisted models are reachable only by keys whose allow-list names them. */
  public?: boolean;
  created?: number;
  routes: RouteEntry[];
  context_window?: number;
  max_output_tokens?: number;
  /** Token models: what a media block is held at, overriding the protocol's defaults. */
  media_tokens?: MediaTokensEntry;
  free_quota?: FreeQuota;
  price: TokenPrice | VideoPrice;
  video?: VideoSpec;
  /** No longer serves new requests (since `date`, an ISO date); `replacement` names a model to use instead. */
  retired?: { date: string; replacement?: string };
}

export interface Catalogue {
  service_name: string;
  currency: string;
  providers: ProviderEntry[];
  models: ModelEntry[];
}

export const aliasName = (alias: AliasEntry): string => (typeof alias === 'string' ? alias : alias.name);

export const isVideoPrice = (price: TokenPrice | VideoPrice): price is VideoPrice => 'per_second' in price;

/** A provider the gateway may call now (src/providers/registry.ts decides which are). Its credential is behind a function so it never serialises. */
export interface ResolvedProvider {
  id: string;
  protocol: ProviderProtocol;
  sandbox: boolean;
  /** Undefined for a sandbox provider whose simulator is not running (it is still listed). */
  baseUrl: string | undefined;
  timeouts: Required<ProviderTimeouts>;
  /** The gateway's queue in front of its account (video providers); absent: no limit, the default wait. */
  queue?: ProviderQueue;
  credential(): string | undefined;
  /** The forward proxy its base_url is reached through (NO_PROXY decided once); undefined: direct. */
  proxy?: URL;
  /** The proxy settings, for URLs other than its base_url (a supplier's file link). */
  egressProxy?: EgressProxy;
  /** Where a provider that writes its output to the operator's bucket writes it (vertex-veo), and the API it is read back through. */
  storage?: { uri: string; apiBaseUrl: string | undefined };
}

/** What deciding which providers are enabled takes. */
export interface RegistryOptions {
  env: NodeJS.ProcessEnv;
  sandbox: boolean;
  sandboxUrls: ReadonlyMap<string, string>;
  /** The credential a simulator hands out for its sandbox provider (a simulated service account's key), by provider id; others get 'sandbox'. */
  sandboxCredentials?: ReadonlyMap<string, string>;
  /** The forward proxy of provider calls (undefined: direct). */
  egressProxy?: EgressProxy;
}
