// Named aliases of the generated contract types; nothing else re-declares a wire shape.
import type { components as PublicComponents, operations as PublicOperations } from '../generated/openapi.ts';
import type { components as AdminComponents, operations as AdminOperations } from '../generated/admin.ts';

export type { PublicOperations, AdminOperations, AdminComponents, PublicComponents };

type PublicSchemas = PublicComponents['schemas'];
type AdminSchemas = AdminComponents['schemas'];

export type WireModel = PublicSchemas['Model'];
export type WireModelList = PublicSchemas['ModelList'];
export type WireModelPricing = PublicSchemas['ModelPricing'];
export type WireModelPricingList = PublicSchemas['ModelPricingList'];

export type WireCustomer = AdminSchemas['Customer'];
export type WireApiKey = AdminSchemas['ApiKey'];
export type WireApiKeyWithSecret = AdminSchemas['ApiKeyWithSecret'];
