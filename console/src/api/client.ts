// The console's HTTP client, typed from the contracts' generated types (generated/openapi.ts and
// admin.ts, made by openapi-typescript from generated/*.json): a path, its method, its path and
// query parameters, its JSON body and its success body are all checked against the contract, so a
// contract change that breaks a screen breaks the build. Credentials travel in the Authorization
// header only (never a cookie or a URL); errors carry the API's own message.
import type { paths as AdminPaths } from '../../../generated/admin.ts';
import type { paths as PublicPaths } from '../../../generated/openapi.ts';

export type { AdminPaths, PublicPaths };
type Method = 'get' | 'post' | 'patch' | 'delete';

/** Paths of `P` that serve `M`. */
export type PathOf<P, M extends Method> = { [K in keyof P]: P[K] extends { [m in M]: object } ? K : never }[keyof P] & string;
type Operation<P, K extends keyof P, M extends Method> = P[K] extends { [m in M]: infer O } ? O : never;
type Params<O> = O extends { parameters: infer X } ? X : never;
type PathParams<O> = Params<O> extends { path: infer X } ? X : never;
type QueryParams<O> = Params<O> extends { query?: infer X } ? Exclude<X, undefined> : never;
type JsonBody<O> = O extends { requestBody?: infer R }
  ? [NonNullable<R>] extends [never]
    ? never
    : NonNullable<R> extends { content: { 'application/json': infer B } }
      ? B
      : never
  : never;
type Success<O> = O extends { responses: infer R }
  ? { [S in keyof R & (200 | 201 | 202 | 204)]: R[S] extends { content: { 'application/json': infer B } } ? B : undefined }[keyof R & (200 | 201 | 202 | 204)]
  : never;

/** What a call needs besides its path: exactly the contract's parameters and body. */
export type Init<O> = ([PathParams<O>] extends [never] ? { path?: undefined } : { path: PathParams<O> }) &
  ([QueryParams<O>] extends [never] ? { query?: undefined } : { query?: QueryParams<O> }) &
  ([JsonBody<O>] extends [never] ? { body?: undefined } : { body: JsonBody<O> });

export type Reply<P, K extends keyof P, M extends Method> = Success<Operation<P, K, M>>;

/** An answer other than 2xx, or no answer: `message` is the API's own words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
    readonly requestId: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface Client<P> {
  get<K extends PathOf<P, 'get'>>(path: K, init: Init<Operation<P, K, 'get'>>): Promise<Reply<P, K, 'get'>>;
  post<K extends PathOf<P, 'post'>>(path: K, init: Init<Operation<P, K, 'post'>>): Promise<Reply<P, K, 'post'>>;
  patch<K extends PathOf<P, 'patch'>>(path: K, init: Init<Operation<P, K, 'patch'>>): Promise<Reply<P, K, 'patch'>>;
  delete<K extends PathOf<P, 'delete'>>(path: K, init: Init<Operation<P, K, 'delete'>>): Promise<Reply<P, K, 'delete'>>;
  /** The raw answer of a GET (file downloads), errors already turned into ApiError. */
  fetch(path: string): Promise<Response>;
}

interface AnyInit {
  path?: Record<string, unknown> | undefined;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
}

/** `credential()` is the admin token or the API key, sent as `Authorization: Bearer`. */
export function createClient<P>(credential: () => string | null): Client<P> {
  async function send(method: string, template: string, init: AnyInit): Promise<Response> {
    let url = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(init.path?.[name] ?? '')));
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(init.query ?? {})) if (value !== undefined && value !== null && value !== '') query.set(name, String(value));
    if ([...query].length > 0) url += `?${query}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    const secret = credential();
    if (secret) headers.authorization = `Bearer ${secret}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, {
        method: method.toUpperCase(),
        headers,
        body: init.body === undefined ? null : JSON.stringify(init.body),
        credentials: 'omit',
        cache: 'no-store',
        referrerPolicy: 'no-referrer',
      });
    } catch (error) {
      throw new ApiError(0, `The gateway did not answer (${error instanceof Error ? error.message : String(error)}). Check your connection and try again.`);
    }
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  async function json(method: Method, path: string, init: AnyInit): Promise<never> {
    const response = await send(method, path, init);
    return (response.status === 204 ? undefined : await response.json()) as never;
  }

  return {
    get: (path, init) => json('get', path, init as AnyInit),
    post: (path, init) => json('post', path, init as AnyInit),
    patch: (path, init) => json('patch', path, init as AnyInit),
    delete: (path, init) => json('delete', path, init as AnyInit),
    fetch: (path) => send('get', path, {}),
  };
}

async function errorOf(response: Response): Promise<ApiError> {
  const requestId = response.headers.get('request-id');
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown; code?: unknown; param?: unknown } };
    const error = body.error;
    if (error && typeof error.message === 'string') {
      return new ApiError(
        response.status,
        error.message,
        typeof error.code === 'string' ? error.code : null,
        typeof error.param === 'string' ? error.param : null,
        requestId,
      );
    }
  } catch {
    // not JSON: described by its status below
  }
  return new ApiError(response.status, `The gateway answered ${response.status} ${response.statusText}.`.replace(' .', '.'), null, null, requestId);
}
