// What can go wrong managing price plans and a customer's pricing. Status codes and wire shapes:
// src/http/errors.ts.
export enum PlanError {
  PlanNotFound = 'plan_not_found',
  /** Another plan already has this name. */
  PlanNameTaken = 'plan_name_taken',
  /** Customers are on the plan: move them to another (or none) before deleting it. */
  PlanInUse = 'plan_in_use',
  /** An override or multiplier that cannot price the models it names (the message says which and why). */
  InvalidPricing = 'invalid_pricing',
}
