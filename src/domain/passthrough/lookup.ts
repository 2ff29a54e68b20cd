// The model a request names, as every endpoint of a model group finds it: a name (an id, an alias
// or a pattern, src/catalogue/names.ts) the caller may reach, of the endpoint's group. A retired
// model is not found, with the date and the replacement; another group's names the endpoint to call.
import type { NamedModel } from '../../catalogue/names.ts';
import type { ModelGroup } from '../../catalogue/types.ts';
import type { Caller } from '../../customers/service.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import type { Failure } from '../failure.ts';
import { passthroughFailures } from './errors.ts';

export function modelFor(discovery: DiscoveryService, caller: Caller, name: unknown, group: ModelGroup): NamedModel | Failure {
  if (typeof name !== 'string' || name === '')
    return passthroughFailures.invalid('model', 'model must be a non-empty string naming a model from GET /v1/models.');
  const named = discovery.resolveModel(caller, name);
  if (!named) {
    const retired = discovery.retirement(caller, name);
    return retired ? passthroughFailures.modelRetired(retired) : passthroughFailures.modelNotFound(name.slice(0, 200));
  }
  if (named.model.group !== group) return passthroughFailures.wrongEndpoint(named.model.id, named.model.group);
  return named;
}
