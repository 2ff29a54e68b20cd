// Two ways in: an operator with the admin token, a customer with one of its API keys. Each is
// checked by one API call before it is kept; a refusal shows the API's own message.
import { signIn, type Session } from './api/session.ts';
import { useAction } from './ui/hooks.ts';
import { ErrorNote, Field, onSubmit } from './ui/parts.tsx';
import { go } from './ui/router.ts';

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const operator = useAction(async (token: string) => signIn({ role: 'operator', token }));
  const customer = useAction(async (key: string) => signIn({ role: 'customer', key }));
  const done = (s: Session) => {
    onSignedIn(s);
    go(s.role);
  };
  return (
    <main class="signin" id="main">
      <h1>Gateway console</h1>
      <p class="muted">The token or key stays in this browser tab (session storage) and is sent only in the Authorization header to this gateway.</p>
      <div class="signin-forms">
        <form
          aria-label="Operator sign-in"
          onSubmit={onSubmit(async ({ token }) => {
            const signedIn = token ? await operator.run(token) : undefined;
            if (signedIn) done(signedIn);
          })}
        >
          <h2>Operator</h2>
          <Field label="Admin token" hint="ADMIN_TOKEN, or the token npm start printed.">
            <input name="token" type="password" autoComplete="off" required />
          </Field>
          <ErrorNote error={operator.error} />
          <button type="submit" disabled={operator.busy}>
            {operator.busy ? 'Checking…' : 'Sign in as operator'}
          </button>
        </form>
        <form
          aria-label="Customer sign-in"
          onSubmit={onSubmit(async ({ key }) => {
            const signedIn = key ? await customer.run(key) : undefined;
            if (signedIn) done(signedIn);
          })}
        >
          <h2>Customer</h2>
          <Field label="API key" hint="One of your keys (sk-gw-…).">
            <input name="key" type="password" autoComplete="off" required />
          </Field>
          <ErrorNote error={customer.error} />
          <button type="submit" disabled={customer.busy}>
            {customer.busy ? 'Checking…' : 'Sign in with API key'}
          </button>
        </form>
      </div>
    </main>
  );
}
