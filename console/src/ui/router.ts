// Routes live in the URL's fragment (`#/operator/customers/cus_…`): the server serves one page, and
// nothing secret is ever in a URL (keys and tokens stay in session storage).
import { useEffect, useState } from 'preact/hooks';

export function useRoute(): string[] {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((part) => decodeURIComponent(part));
}

export const href = (...parts: string[]): string => `#/${parts.map(encodeURIComponent).join('/')}`;

export function go(...parts: string[]): void {
  location.hash = href(...parts);
}
