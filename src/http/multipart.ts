// multipart/form-data bodies (the OpenAI SDK sends video requests this way) decoded into the same
// object a JSON body gives: bracket keys nest (`content[][type]`, `reference_images[][url]`,
// `input_reference[image_url]`), values stay strings for the validator to coerce. File parts are
// refused: the gateway takes assets as URLs only.
import busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';

type Node = Record<string, unknown> | unknown[];

/** Sets `value` at a bracket path; `[]` appends, or starts a new element when the key repeats. */
export function assignBracketKey(target: Record<string, unknown>, key: string, value: string): void {
  const parts = key.replace(/\]/g, '').split('[');
  let node: Node = target;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const last = i === parts.length - 1;
    if (Array.isArray(node)) {
      const rest = parts[i + 1];
      if (last) {
        node.push(value);
        return;
      }
      let element = node.at(-1) as Record<string, unknown> | undefined;
      // A repeated field means the next element of the array has begun.
      if (!element || typeof element !== 'object' || (rest !== undefined && parts.length === i + 2 && rest in element)) {
        element = {};
        node.push(element);
      }
      node = element;
      continue;
    }
    const record = node as Record<string, unknown>;
    if (last) {
      record[part] = value;
      return;
    }
    const next = parts[i + 1] === '' ? [] : {};
    if (record[part] === undefined || typeof record[part] !== 'object') record[part] = next;
    node = record[part] as Node;
  }
}

export function multipartBody(limitBytes: number) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('multipart/form-data')) return next();
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fieldSize: limitBytes, fields: 1000, files: 0 } });
    } catch (error) {
      return next(Object.assign(new Error((error as Error).message), { status: 400 }));
    }
    const body: Record<string, unknown> = {};
    let failure: Error | undefined;
    let received = 0;
    parser.on('field', (name, value, info) => {
      received += value.length;
      if (info.valueTruncated || received > limitBytes) failure ??= Object.assign(new Error('too large'), { type: 'entity.too.large' });
      else assignBracketKey(body, name, value);
    });
    parser.on('file', (name, stream) => {
      stream.resume();
      failure ??= Object.assign(new Error(`File uploads are not accepted (field ${name}); pass assets as URLs.`), { status: 400 });
    });
    parser.on('filesLimit', () => (failure ??= Object.assign(new Error('File uploads are not accepted; pass assets as URLs.'), { status: 400 })));
    parser.on('error', (error: Error) => next(Object.assign(error, { status: 400 })));
    parser.on('close', () => {
      if (failure) return next(failure);
      req.body = body;
      next();
    });
    req.pipe(parser);
  };
}
