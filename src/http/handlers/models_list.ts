import type { Failure } from '../../domain/failure.ts';
import type { PublicComponents } from '../../types.ts';
import { cacheable } from '../conditional.ts';
import type { JsonReply, PublicContext } from '../handler.ts';
import { anthropicPage, modelToAnthropic, modelToWire, wantsAnthropicShape } from '../serialize/models.ts';

export async function models_list(ctx: PublicContext<'models_list'>): Promise<JsonReply | Failure> {
  const { discovery } = ctx.services;
  if (wantsAnthropicShape(ctx.headers)) {
    // What an Anthropic client can call: the models served on /v1/messages, and their listed aliases.
    const messages = (model: { group: string }) => model.group === 'messages';
    const all = [
      ...discovery
        .visibleModels(ctx.caller)
        .filter(messages)
        .map((m) => modelToAnthropic(m)),
      ...discovery
        .listedAliases(ctx.caller)
        .filter(({ model }) => messages(model))
        .map(({ alias, model }) => modelToAnthropic(model, alias)),
    ];
    const { limit, after_id: afterId, before_id: beforeId } = ctx.query;
    return cacheable(
      ctx,
      anthropicPage(all, { limit: limit ?? 20, ...(afterId !== undefined ? { afterId } : {}), ...(beforeId !== undefined ? { beforeId } : {}) }),
    );
  }
  const owner = discovery.serviceName();
  const data = [
    ...discovery.visibleModels(ctx.caller).map((m) => modelToWire(m, owner)),
    ...discovery.listedAliases(ctx.caller).map(({ alias, model }) => modelToWire(model, owner, alias)),
  ];
  const body: PublicComponents['schemas']['ModelList'] = { object: 'list', data };
  return cacheable(ctx, body);
}
