// A plan's or a customer's overrides as the API takes them: a JSON array of {model, price} or
// {model, multiplier}, edited as text (the API says what is wrong with it, model by model).
import { ApiError } from '../api/client.ts';
import type { AdminSchemas } from '../api/session.ts';
import { Field } from '../ui/parts.tsx';

export type Override = AdminSchemas['PriceOverride'];

export const EXAMPLE_OVERRIDES = '[{"model": "anthropic/claude-*", "multiplier": "0.9"}, {"model": "sandbox/chat-model", "price": {"input_per_mtok": "0.40"}}]';

/** The text as overrides; text that is not a JSON array is refused here, in words, before any call. */
export function parseOverrides(text: string): Override[] {
  if (text.trim() === '') return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed)) return parsed as Override[];
  } catch {
    // said below
  }
  throw new ApiError(400, `Overrides must be a JSON array, such as ${EXAMPLE_OVERRIDES}.`, null, 'overrides');
}

export const overridesText = (overrides: Override[]): string => (overrides.length === 0 ? '' : JSON.stringify(overrides, null, 2));

export function OverridesField({ value, patterns = true }: { value: string; patterns?: boolean }) {
  return (
    <Field
      label="Overrides (JSON)"
      hint={`A list of {model, price} or {model, multiplier}: ${patterns ? 'a model id or a pattern (* any run, ? one character)' : 'model ids'}; a price may be partial (the rest is the list price), tiers included. Example: ${EXAMPLE_OVERRIDES}`}
    >
      <textarea name="overrides" rows={6} spellcheck={false} defaultValue={value} />
    </Field>
  );
}
