// Expected failures of a request, as values. The domain says what went wrong (a code of its own
// errors.ts, a message a client developer can act on, the field at fault); src/http/errors.ts maps
// every code once to an HTTP status and to both wire shapes (Anthropic's and OpenAI's).

export class Failure<Code extends string = string> {
  constructor(
    readonly code: Code,
    readonly message: string,
    readonly details: {
      param?: string | null;
      /** The provider's status and error type when its refusal is passed on to the client. */
      upstream?: { status: number; type: string | undefined };
      /** Headers the client should see with the error (retry-after, rate-limit headers). */
      headers?: Record<string, string>;
    } = {},
  ) {}
}

export const isFailure = (value: unknown): value is Failure => value instanceof Failure;
