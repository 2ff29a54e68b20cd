// The console's shell: sign-in when nobody is signed in, else the operator's or the customer's
// screens with their navigation. Operator screens are only reachable with an operator session,
// and every one of their calls carries the admin token; the API refuses them without it anyway.
import { useState } from 'preact/hooks';
import { session, type Session } from './api/session.ts';
import { CustomerScreens, CUSTOMER_NAV } from './customer/screens.tsx';
import { OperatorScreens, OPERATOR_NAV } from './operator/screens.tsx';
import { href, useRoute } from './ui/router.ts';
import { SignIn } from './signin.tsx';

export function App() {
  const [who, setWho] = useState<Session | null>(session.get());
  const route = useRoute();
  const signOut = () => {
    session.set(null);
    setWho(null);
    location.hash = '';
  };
  if (!who) return <SignIn onSignedIn={(s) => setWho(s)} />;
  const operator = who.role === 'operator';
  const area = operator ? 'operator' : 'customer';
  const nav = operator ? OPERATOR_NAV : CUSTOMER_NAV;
  const rest = route[0] === area ? route.slice(1) : [];
  const current = rest[0] ?? nav[0]![0];
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href={href(area)}>
          Gateway console
        </a>
        <span class="role">{operator ? 'Operator' : 'Customer'}</span>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav aria-label={operator ? 'Operator screens' : 'Your account'}>
        <ul>
          {nav.map(([id, label]) => (
            <li key={id}>
              <a href={href(area, id)} aria-current={current === id ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main">{operator ? <OperatorScreens route={rest} /> : <CustomerScreens route={rest} />}</main>
    </div>
  );
}
