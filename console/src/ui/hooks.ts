// Loading, paging and form actions, each with its loading and error state.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

/** Loads on mount and whenever `deps` change; a stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: Error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data: state.data, error: state.error, loading: state.loading, reload: useCallback(() => setTick((t) => t + 1), []) };
}

export interface Page<T> {
  items: T[];
  /** The cursor of the next page; undefined on the last. */
  next: string | undefined;
}

export interface Paged<T> {
  items: T[];
  error: Error | undefined;
  loading: boolean;
  hasMore: boolean;
  loadMore: () => void;
  reload: () => void;
}

/** A list paged by the API's cursor: the first page on mount (and when `deps` change), more on demand. */
export function usePaged<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, deps: unknown[]): Paged<T> {
  const [state, setState] = useState<{ items: T[]; next?: string; error?: Error; loading: boolean }>({ items: [], loading: true });
  const generation = useRef(0);
  const run = (cursor: string | undefined, append: boolean) => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    fetchPage(cursor).then(
      (page) => mine === generation.current && setState((s) => ({ items: append ? [...s.items, ...page.items] : page.items, next: page.next, loading: false })),
      (error: Error) => mine === generation.current && setState((s) => ({ ...s, error, loading: false })),
    );
  };
  useEffect(() => run(undefined, false), deps);
  return {
    items: state.items,
    error: state.error,
    loading: state.loading,
    hasMore: state.next !== undefined,
    loadMore: () => run(state.next, true),
    reload: () => run(undefined, false),
  };
}

export interface Action<A extends unknown[], T> {
  run: (...args: A) => Promise<T | undefined>;
  busy: boolean;
  error?: Error | undefined;
  result?: T | undefined;
  reset: () => void;
}

/** A form's submission: busy while it runs, the API's error when it fails. */
export function useAction<A extends unknown[], T>(act: (...args: A) => Promise<T>): Action<A, T> {
  const [state, setState] = useState<{ busy: boolean; error?: Error; result?: T }>({ busy: false });
  return {
    ...state,
    reset: () => setState({ busy: false }),
    run: async (...args: A) => {
      setState({ busy: true });
      try {
        const result = await act(...args);
        setState({ busy: false, result });
        return result;
      } catch (error) {
        setState({ busy: false, error: error as Error });
        return undefined;
      }
    },
  };
}
