// Settle or release something held: a pending request hold, or a video task in review. Both are
// written to the journal with who did it and why.
import { useAction } from '../ui/hooks.ts';
import { ErrorNote, Field, onSubmit } from '../ui/parts.tsx';

export interface Resolution {
  action: 'settle' | 'release';
  amount?: string;
  actor: string;
  reason: string;
}

export function ResolveForm({
  label,
  amountHint,
  resolve,
  onDone,
}: {
  label: string;
  amountHint: string;
  resolve: (r: Resolution) => Promise<unknown>;
  onDone: () => void;
}) {
  const act = useAction(resolve);
  return (
    <form
      aria-label={label}
      class="resolve"
      onSubmit={onSubmit(async ({ action, amount, actor, reason }) => {
        const resolution: Resolution = { action: action === 'settle' ? 'settle' : 'release', actor: actor ?? '', reason: reason ?? '' };
        if (resolution.action === 'settle' && amount) resolution.amount = amount;
        if ((await act.run(resolution)) !== undefined) onDone();
      })}
    >
      <fieldset>
        <legend>{label}</legend>
        <label class="choice">
          <input type="radio" name="action" value="settle" required /> Settle (charge)
        </label>
        <label class="choice">
          <input type="radio" name="action" value="release" /> Release (refund the hold)
        </label>
      </fieldset>
      <Field label="Amount to charge" hint={amountHint}>
        <input name="amount" inputMode="decimal" pattern="[0-9]+(\.[0-9]{1,6})?" />
      </Field>
      <Field label="Your name">
        <input name="actor" required maxLength={200} />
      </Field>
      <Field label="Reason">
        <input name="reason" required maxLength={1000} />
      </Field>
      <ErrorNote error={act.error} />
      <button type="submit" disabled={act.busy}>
        Resolve
      </button>
    </form>
  );
}
