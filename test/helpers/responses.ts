// Prices of sandbox/responses-model (catalogue.sample.yaml), for tests that assert exact wallet moves.
import type { OpenAIResponsesSimulator } from '../../src/sandbox/openai-responses/server.ts';
import { formatMicros } from '../../src/shared/money.ts';
import { parseSse, validateUpstreamRequest, validateUpstreamResponse } from './upstream-contract.ts';

export const RESPONSES_MODEL = 'sandbox/responses-model'; // routes: sandbox-openai-responses, then sandbox-openai-responses-backup

export interface ResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  input_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
}

const MULTIPLIERS: Record<string, bigint> = { priority: 2_000_000n, flex: 500_000n };

/** The model's long-context step: above 272,000 input tokens (cached and written included), every line at its tier. */
export const RESPONSES_TIER_ABOVE = 272_000;

/**
 * Micro-units for a usage at 1.25 (input), 0.125 (cached), 1.50 (cache writes) and 10.00 (output)
 * per million tokens, or, when its input is above 272,000 tokens, at the tier: 2.50, 0.25 and 3.00
 * (the cache prices follow the input step), and 15.00; times the service tier's multiplier
 * (priority x2, flex x0.5), rounded up once.
 */
export function responsesMicros(usage: ResponsesUsage, tier = 'default'): bigint {
  const cached = BigInt(usage.input_tokens_details?.cached_tokens ?? 0);
  const writes = BigInt(usage.input_tokens_details?.cache_write_tokens ?? 0);
  const plain = BigInt(usage.input_tokens) - cached - writes;
  const long = usage.input_tokens > RESPONSES_TIER_ABOVE;
  const [input, write, read, output] = long ? [2_500_000n, 3_000_000n, 250_000n, 15_000_000n] : [1_250_000n, 1_500_000n, 125_000n, 10_000_000n];
  const perMillion = plain * input + writes * write + cached * read + BigInt(usage.output_tokens) * output;
  const numerator = perMillion * (MULTIPLIERS[tier] ?? 1_000_000n);
  return (numerator + 999_999_999_999n) / 1_000_000_000_000n;
}

/** The same as a wallet amount ("0.000170"), summed over several answers (each with its tier). */
export const responsesCost = (...answers: Array<ResponsesUsage | [ResponsesUsage, string]>): string =>
  formatMicros(answers.reduce((sum, a) => sum + (Array.isArray(a) ? responsesMicros(a[0], a[1]) : responsesMicros(a)), 0n));

/** Event types the simulator sends on purpose although no document lists them (`[[sim unknown_event]]`). */
const UNDOCUMENTED_EVENTS = new Set(['response.sandbox_note.added']);

/**
 * Every request the gateway sent the simulators, and every answer they gave, checked against the
 * vendored OpenAI Responses subset (openapi/upstream/openai-responses.yaml). Answers cut on purpose
 * (a half JSON body, a dropped stream) are checked up to where they stop.
 */
export function responsesExchangeProblems(...simulators: OpenAIResponsesSimulator[]): string[] {
  const problems: string[] = [];
  for (const simulator of simulators) {
    for (const exchange of simulator.exchanges) {
      const where = `${exchange.method} ${exchange.path}`;
      for (const p of validateUpstreamRequest('openai-responses', exchange.method, exchange.path, exchange.body)) problems.push(`${where} request: ${p}`);
      if (exchange.status === undefined) continue; // cut on purpose: no complete answer to check
      if (exchange.method === 'DELETE' && exchange.status === 200) {
        // The document declares this 200 without a body, but its own example (and the API) sends one.
        const deleted = JSON.parse(exchange.answer) as Record<string, unknown>;
        if (deleted.object !== 'response' || deleted.deleted !== true || typeof deleted.id !== 'string')
          problems.push(`${where} 200: not the documented example's shape`);
        continue;
      }
      let answer: unknown = exchange.answer;
      if (exchange.contentType === 'application/json') answer = JSON.parse(exchange.answer);
      else
        answer = parseSse(exchange.answer)
          .filter((f) => !UNDOCUMENTED_EVENTS.has(f.event ?? ''))
          .map((f) => `${f.event !== undefined ? `event: ${f.event}\n` : ''}data: ${f.data}\n\n`)
          .join('');
      for (const p of validateUpstreamResponse('openai-responses', exchange.method, exchange.path, exchange.status, answer, exchange.contentType))
        problems.push(`${where} ${exchange.status}: ${p}`);
    }
  }
  return problems;
}
