// Default timeouts by kind of protocol; a provider folder picks one, a catalogue entry overrides any.
import type { ProviderTimeouts } from '../catalogue/types.ts';

/**
 * Text protocols: a stream's headers and first event come within seconds; a non-streamed
 * generation sends its first byte only when the whole answer is done, hence the longer `response_ms`.
 */
export const TEXT_TIMEOUTS: Required<ProviderTimeouts> = { connect_ms: 10_000, first_byte_ms: 120_000, response_ms: 600_000, idle_ms: 300_000 };

/** Task protocols (video): every call is a short JSON exchange, or a download that keeps moving. */
export const TASK_TIMEOUTS: Required<ProviderTimeouts> = { connect_ms: 10_000, first_byte_ms: 60_000, response_ms: 60_000, idle_ms: 60_000 };
