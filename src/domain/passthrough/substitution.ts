// What the gateway adapts when it chose the model itself (the client sent an alias or a name a
// pattern matched, src/catalogue/names.ts): a client's output limit above the substitute's cap is
// lowered to the cap (Claude Code asks 128,000 output tokens of whatever `--model haiku` lands on;
// refusing would fail the client, which never asked for that model), and the protocol may adapt
// what else the substitute cannot take (messages: a 1M-context beta). Only those members of the
// body change, in place (json-splice); the response says so in a header and the request log keeps
// both numbers. A model named by its exact id is never altered: its limits are refused as before.
import type { ResolvedModel } from '../../catalogue/store.ts';
import { setTopLevelMember } from '../../shared/json-splice.ts';
import type { Adaptation, PassthroughProtocol, PassthroughRequest } from './protocol.ts';

/** Sent with the answer when max_tokens was lowered: the value the request was sent with. */
export const MAX_TOKENS_CAPPED_HEADER = 'x-gateway-max-tokens-capped';

/** The log's integer column: a larger ask is logged as this (it was capped all the same). */
const INT_MAX = 2_147_483_647;

const unchanged = (request: PassthroughRequest): Adaptation => ({ request, headers: {}, log: {} });

export function adaptToSubstitute(protocol: PassthroughProtocol, request: PassthroughRequest, model: ResolvedModel): Adaptation {
  const capped = capOutput(protocol, request, model.max_output_tokens);
  const adapted = protocol.adaptToSubstitute?.(capped.request, model) ?? unchanged(capped.request);
  return { request: adapted.request, headers: { ...capped.headers, ...adapted.headers }, log: { ...capped.log, ...adapted.log } };
}

function capOutput(protocol: PassthroughProtocol, request: PassthroughRequest, cap: number | undefined): Adaptation {
  if (cap === undefined || !protocol.outputLimitFields) return unchanged(request);
  let raw = request.rawBody.toString('utf8');
  let body = request.body;
  let asked: number | undefined;
  for (const field of protocol.outputLimitFields) {
    const value = body[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= cap) continue;
    const rewritten = setTopLevelMember(raw, field, String(cap));
    if (rewritten === undefined) continue; // not an object: the protocol's check refuses it
    raw = rewritten;
    body = { ...body, [field]: cap };
    asked = Math.max(asked ?? 0, value);
  }
  if (asked === undefined) return unchanged(request);
  return {
    request: { ...request, body, rawBody: Buffer.from(raw, 'utf8') },
    headers: { [MAX_TOKENS_CAPPED_HEADER]: String(cap) },
    log: { max_tokens_requested: Math.min(asked, INT_MAX), max_tokens_capped: cap },
  };
}
