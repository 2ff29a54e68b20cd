// The holds runtime's face: a request's hold (Holds), its settling and sweeping, the runtime that
// starts them, and what a hold has delivered so far. Code outside src/holds imports from here only
// (ESLint's `faces`); scripts/faces.mjs adds a name an outside import needs.
export { checkpointedCharge, deliveredSoFar } from './delivered.ts';
export { type Hold, type Holds } from './holds.ts';
export { startHoldsRuntime } from './runtime.ts';
export { type SettlementResult, type Settler } from './settler.ts';
export { createSweeper, type Sweeper } from './sweeper.ts';
