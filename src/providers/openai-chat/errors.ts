// What OpenAI-style error bodies (`{"error": {"message", "type", "param", "code"}}`) say beyond
// their message and type (sanitize.ts reads those): the field they blame, which the gateway passes
// on when it is a plain field name. The Responses API speaks the same shape.

/** The field an OpenAI-style error names (`"param": "messages"`), when it is a plain field name. */
export function openaiErrorParam(body: string | undefined): string | null {
  try {
    const param = (JSON.parse(body ?? '') as { error?: { param?: unknown } }).error?.param;
    return typeof param === 'string' && /^[\w.[\]-]{1,100}$/.test(param) ? param : null;
  } catch {
    return null;
  }
}
