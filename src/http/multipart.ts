// multipart/form-data bodies (the OpenAI SDK sends video requests this way) decoded into the
// object a JSON body gives: bracket keys nest (`content[][type]`, `reference_images[][url]`,
// `input_reference[image_url]`), values stay strings for the validator to coerce. Objects have
// no prototype and prototype-shaped keys are refused, so no field name can reach Object.prototype.
// File parts are refused: the gateway takes assets as URLs only.
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { Failure } from '../domain/failure.ts';
import { HttpError } from './errors.ts';

type Node = Record<string, unknown> | unknown[];

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_SEGMENTS = 8;

const record = (): Record<string, unknown> => Object.create(null) as Record<string, unknown>;

/** Sets `value` at a bracket path; `[]` appends, or starts a new element when the key repeats. */
export function assignBracketKey(target: Record<string, unknown>, key: string, value: string): string | undefined {
  const parts = key.replace(/\]/g, '').split('[');
  if (parts.length > MAX_SEGMENTS) return `The form field name \`${key.slice(0, 100)}\` nests too deeply.`;
  if (parts.some((part) => FORBIDDEN.has(part))) return `The form field name \`${key.slice(0, 100)}\` is not accepted.`;
  let node: Node = target;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const last = i === parts.length - 1;
    if (Array.isArray(node)) {
      if (last) {
        node.push(value);
        return undefined;
      }
      const rest = parts[i + 1];
      let element = node.at(-1) as Record<string, unknown> | undefined;
      // A repeated field means the next element of the array has begun.
      if (!element || typeof element !== 'object' || Array.isArray(element) || (rest !== undefined && parts.length === i + 2 && rest in element)) {
        element = record();
        node.push(element);
      }
      node = element;
      continue;
    }
    const fields = node as Record<string, unknown>;
    if (last) {
      fields[part] = value;
      return undefined;
    }
    if (fields[part] === undefined || typeof fields[part] !== 'object') fields[part] = parts[i + 1] === '' ? [] : record();
    node = fields[part] as Node;
  }
  return undefined;
}

export function parseMultipart(req: IncomingMessage, limitBytes: number): Promise<Record<string, unknown> | Failure> {
  return new Promise((resolve) => {
    let parser: busboy.Busboy;
    try {
      // Field names in UTF-8, as browsers and the SDKs send them (busboy's default reads them as latin-1).
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fieldSize: limitBytes, fields: 1000, files: 0, parts: 1000 } });
    } catch (error) {
      return resolve(new Failure(HttpError.InvalidRequest, `Malformed multipart body: ${(error as Error).message}`));
    }
    const body = record();
    let failure: Failure | undefined;
    let received = 0;
    const refuse = (next: Failure) => (failure ??= next);
    // A part without a name (`name=""` or none at all) comes with an undefined name: refused, never
    // dereferenced, since a throw inside these listeners would be uncaught and end the process.
    parser.on('field', (name: string | undefined, value: string | undefined, info) => {
      if (failure) return;
      if (!name) return refuse(new Failure(HttpError.InvalidRequest, 'A form field has no name.'));
      received += name.length + (value ?? '').length;
      if (info.valueTruncated || received > limitBytes)
        return refuse(new Failure(HttpError.RequestTooLarge, `Request body exceeds the limit of ${limitBytes} bytes.`));
      const problem = assignBracketKey(body, name, value ?? '');
      if (problem) refuse(new Failure(HttpError.InvalidRequest, problem, { param: name.slice(0, 100) }));
    });
    parser.on('file', (name: string | undefined, stream) => {
      stream.resume();
      const field = (name ?? '').slice(0, 100);
      refuse(
        new Failure(HttpError.InvalidRequest, `File uploads are not accepted (field ${field || 'without a name'}); pass assets as URLs.`, {
          param: field || null,
        }),
      );
    });
    parser.on('filesLimit', () => refuse(new Failure(HttpError.InvalidRequest, 'File uploads are not accepted; pass assets as URLs.')));
    parser.on('fieldsLimit', () => refuse(new Failure(HttpError.InvalidRequest, 'Too many form fields.')));
    parser.on('partsLimit', () => refuse(new Failure(HttpError.InvalidRequest, 'Too many form parts.')));
    parser.on('error', (error: Error) => {
      req.unpipe(parser);
      req.resume();
      resolve(failure ?? new Failure(HttpError.InvalidRequest, `Malformed multipart body: ${error.message}`));
    });
    parser.on('close', () => resolve(failure ?? body));
    // A client that leaves mid-body never ends the parser: answer (to no one) so the request finishes.
    req.once('close', () => {
      if (!req.complete) resolve(failure ?? new Failure(HttpError.InvalidRequest, 'The request body was cut off.'));
    });
    req.pipe(parser);
  });
}
