// A video quote (`POST /v1/videos` with `dry_run: true`; token requests: token-quote.ts): the
// hold a real create would take now, found the way create finds it (the same model lookup, route,
// validation, price and free-unit arithmetic), with nothing inserted, reserved or submitted. The
// hold depends on the free units left at this moment; a create that follows with nothing in
// between holds exactly this.
import type { ResolvedModel } from '../../catalogue/store.ts';
import type { Caller } from '../../customers/service.ts';
import type { VideoPrice } from '../../catalogue/types.ts';
import { isVideoProtocol, type VideoProtocol } from '../../catalogue/video-protocols.ts';
import { chargeAmount, unitsWanted } from '../../ledger/context.ts';
import type { Ledger } from '../../ledger/service.ts';
import { costOf, videoLines, type CostLine } from '../../pricing/cost.ts';
import { videoAdapters } from '../../providers/video-adapters.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import type { Failure } from '../failure.ts';
import { passthroughFailures } from '../passthrough/errors.ts';
import { videoFailures } from '../videos/errors.ts';
import { heldSeconds, validateVideoRequest } from '../videos/validate.ts';

export interface VideoQuote {
  model: string;
  priceVersion: number;
  seconds: number;
  resolution: string;
  ratio: string | null;
  size: string | null;
  perSecond: string;
  /** The requested seconds (and the input video seconds the provider may bill) at the tier's price, before free units. */
  cost: bigint;
  /** Free units of the model's allowance the hold would take, and their unit. */
  freeUnits: bigint;
  freeUnit: string | null;
  /** The money a create would hold now. */
  hold: bigint;
}

export async function quoteVideo(
  deps: { discovery: DiscoveryService; ledger: Ledger },
  caller: Caller,
  body: Record<string, unknown>,
): Promise<VideoQuote | Failure> {
  const model = typeof body.model === 'string' ? deps.discovery.findCatalogued(caller, body.model) : undefined;
  if (!model) {
    const retired = typeof body.model === 'string' ? deps.discovery.retirement(caller, body.model) : undefined;
    return retired ? passthroughFailures.modelRetired(retired) : videoFailures.modelNotFound(String(body.model));
  }
  if (model.group !== 'video' || !model.video) return videoFailures.notVideo(model.id, model.group);
  const route = model.routes.find((r) => r.provider.baseUrl && videoAdapters[r.provider.protocol] && isVideoProtocol(r.provider.protocol));
  if (!route) return videoFailures.noProvider(model.id);
  const request = validateVideoRequest(body, model, route.provider.protocol as VideoProtocol);
  if ('param' in request) return videoFailures.invalid(request.param, request.message);

  const perSecond = (model.price as VideoPrice).per_second[request.resolution]!;
  const bound = { lines: videoLines(perSecond, heldSeconds(request)) };
  const freeUnits = await freeUnitsHeld(deps.ledger, caller, model, bound);
  return {
    model: model.id,
    priceVersion: model.priceVersion.version,
    seconds: request.seconds,
    resolution: request.resolution,
    ratio: request.ratio,
    size: request.size ?? null,
    perSecond,
    cost: costOf(bound.lines),
    freeUnits,
    freeUnit: model.free_quota?.unit ?? null,
    hold: chargeAmount(bound, freeUnits, model.free_quota?.unit ?? null).amount,
  };
}

/** What reserve's holdFreeUnits would take for this bound now: the allowance left this period, up to what is wanted. */
export async function freeUnitsHeld(ledger: Ledger, caller: Caller, model: ResolvedModel, bound: { lines: CostLine[] }): Promise<bigint> {
  if (!model.free_quota) return 0n;
  const [usage] = await ledger.freeQuotaUsage(caller.customerId, [{ modelId: model.id, quota: model.free_quota }]);
  const left = BigInt(model.free_quota.amount) - usage!.used - usage!.held;
  const wanted = unitsWanted(bound, model.free_quota);
  return left <= 0n ? 0n : left < wanted ? left : wanted;
}
