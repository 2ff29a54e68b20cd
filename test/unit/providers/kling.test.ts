import { expect } from 'chai';
import { VIDEO_PROTOCOL_TRAITS } from '../../../src/catalogue/video-protocols.ts';
import { parseKlingTask } from '../../../src/providers/kling/adapter.ts';
import { codeError, mapCreateRefusal } from '../../../src/providers/kling/errors.ts';
import { klingCreate, taskPath, taskRefOf, upstreamIdOf, type KlingCreate } from '../../../src/providers/kling/request.ts';
import { UpstreamError } from '../../../src/providers/types.ts';
import type { NormalisedVideoRequest } from '../../../src/providers/video.ts';
import { validateUpstreamRequest, validateUpstreamResponse } from '../../helpers/upstream-contract.ts';

const base: NormalisedVideoRequest = {
  model: 'kling/kling-v2-6',
  content: [{ type: 'text', text: 'a cat on a piano' }],
  seconds: 5,
  resolution: 'std',
  ratio: null,
  size: null,
  reference_images: [],
  generate_audio: null,
  watermark: null,
};
const image = (url: string, role?: string) => ({ type: 'image_url' as const, image_url: { url }, ...(role ? { role } : {}) });
const created = (request: NormalisedVideoRequest): KlingCreate => {
  const create = klingCreate('kling-v2-6', request);
  if (typeof create === 'string') throw new Error(create);
  return create;
};
const onContract = (create: KlingCreate) =>
  validateUpstreamRequest('kling-video', 'POST', `/v1/videos/${create.kind}`, create.body, 'application/json', { documentedOnly: true });

describe('Kling adapter: what it sends', () => {
  it('text alone is text2video: model_name, prompt, mode (the tier), duration as a string, aspect_ratio, sound', () => {
    const create = created({ ...base, resolution: 'pro', seconds: 10, ratio: '9:16', generate_audio: true });
    expect(create).to.deep.equal({
      kind: 'text2video',
      mode: 'pro',
      body: { model_name: 'kling-v2-6', prompt: 'a cat on a piano', mode: 'pro', duration: '10', sound: 'on', aspect_ratio: '9:16' },
    });
    expect(onContract(create)).to.deep.equal([]);
    expect(created(base).body).to.deep.equal({ model_name: 'kling-v2-6', prompt: 'a cat on a piano', mode: 'std', duration: '5' });
    const traits = VIDEO_PROTOCOL_TRAITS['kling-video'];
    for (const resolution of traits.resolutions!)
      for (const ratio of traits.ratios!)
        for (const seconds of traits.seconds!) expect(onContract(created({ ...base, resolution, ratio, seconds }))).to.deep.equal([]);
  });

  it('a first and/or last frame is image2video: image, image_tail (inline data as bare Base64), and no aspect_ratio', () => {
    const create = created({
      ...base,
      content: [...base.content, image('https://example.com/first.png', 'first_frame'), image('data:image/png;base64,iVBORw0KGgo=', 'last_frame')],
      generate_audio: false,
    });
    expect(create).to.deep.equal({
      kind: 'image2video',
      mode: 'std',
      body: {
        model_name: 'kling-v2-6',
        prompt: 'a cat on a piano',
        mode: 'std',
        duration: '5',
        sound: 'off',
        image: 'https://example.com/first.png',
        image_tail: 'iVBORw0KGgo=',
      },
    });
    expect(onContract(create)).to.deep.equal([]);
    // A role-less image is the first frame; a last frame alone is enough for Kling.
    expect(created({ ...base, content: [...base.content, image('https://example.com/a.png')] }).body.image).to.equal('https://example.com/a.png');
    const tailOnly = created({ ...base, content: [...base.content, image('https://example.com/z.png', 'last_frame')] });
    expect(tailOnly.body).to.include({ image_tail: 'https://example.com/z.png' }).and.not.have.property('image');
    expect(onContract(tailOnly)).to.deep.equal([]);
  });

  it('refuses, before any call, what Kling cannot carry: a ratio beside an image, two first frames, inline data that is not Base64', () => {
    const withImage = { ...base, content: [...base.content, image('https://example.com/first.png')] };
    expect(klingCreate('m', { ...withImage, ratio: '16:9' })).to.match(/^ratio \(or size\) cannot be given with an image input/);
    expect(klingCreate('m', { ...withImage, content: [...withImage.content, image('https://example.com/b.png', 'first_frame')] })).to.match(
      /at most one first_frame and one last_frame/,
    );
    expect(klingCreate('m', { ...base, content: [...base.content, image('data:image/png,rawbytes')] })).to.equal('an inline image must be a base64 data: URL');
    expect(klingCreate('m', { ...base, resolution: '1080p' })).to.match(/not a Kling mode/);
  });

  it('the contract catches a field Kling does not document there, and a duration sent as a number', () => {
    const t2v = created(base);
    const i2v = created({ ...base, content: [...base.content, image('https://example.com/a.png')] });
    expect(validateUpstreamRequest('kling-video', 'POST', '/v1/videos/image2video', { ...i2v.body, aspect_ratio: '16:9' })).to.deep.equal([
      'body: unknown field "aspect_ratio" (the upstream refuses unknown fields)',
    ]);
    expect(validateUpstreamRequest('kling-video', 'POST', '/v1/videos/text2video', { ...t2v.body, duration: 5 })).to.have.length(1);
    expect(validateUpstreamRequest('kling-video', 'POST', '/v1/videos/text2video', { ...t2v.body, watermark: true })).to.have.length(1);
  });

  it('keeps the kind and the mode in the upstream id: the poll goes to the kind’s path and settles at the mode', () => {
    const ref = { kind: 'image2video' as const, mode: 'pro' as const, taskId: '867283741759111202' };
    expect(upstreamIdOf(ref)).to.equal('image2video:pro:867283741759111202');
    expect(taskRefOf('image2video:pro:867283741759111202')).to.deep.equal(ref);
    expect(taskPath(ref)).to.equal('/v1/videos/image2video/867283741759111202');
    for (const bad of ['867283741759111202', 'lipsync:pro:1', 'text2video:4k:1', 'text2video:std:']) expect(taskRefOf(bad), bad).to.equal(undefined);
  });
});

describe('Kling adapter: what it reads', () => {
  const ref = { kind: 'text2video' as const, mode: 'pro' as const, taskId: '867283741759111202' };
  const task = {
    task_id: '867283741759111202',
    task_status: 'succeed',
    task_status_msg: '',
    task_info: {},
    final_unit_deduction: '7',
    created_at: 1774805076166,
    updated_at: 1774805201321,
    task_result: { videos: [{ id: 'v-1', url: 'https://cdn.example.com/k.mp4', duration: '10.1' }] },
  };

  it('a succeeded task: delivered seconds from videos[].duration, the task’s mode as the tier, files kept 30 days', () => {
    expect(
      validateUpstreamResponse('kling-video', 'GET', '/v1/videos/text2video/867283741759111202', 200, { code: 0, message: 'SUCCEED', data: task }),
    ).to.deep.equal([]);
    const poll = parseKlingTask(task, ref);
    expect(poll).to.deep.include({
      status: 'completed',
      upstreamStatus: 'succeed',
      progress: 100,
      deliveredSeconds: '10.1',
      deliveredResolution: 'pro',
      assetUrl: 'https://cdn.example.com/k.mp4',
      expiresAt: 1774805201 + 30 * 86400,
      error: undefined,
    });
    // Kling's id is shown as the kept upstream id, which the platform's task id replaces.
    expect(poll.raw.task_id).to.equal('text2video:pro:867283741759111202');
  });

  it('maps the four statuses; an unknown one is unknown (review), a failure carries Kling’s reason', () => {
    const states = ['submitted', 'processing', 'succeed', 'failed', 'paused'].map((s) => parseKlingTask({ ...task, task_status: s }, ref).status);
    expect(states).to.deep.equal(['queued', 'in_progress', 'completed', 'failed', 'unknown']);
    const failed = parseKlingTask({ task_id: '1', task_status: 'failed', task_status_msg: 'Failure to pass the risk control system' }, ref);
    expect(failed.error).to.deep.equal({ code: 'generation_failed', message: 'Failure to pass the risk control system' });
    expect(failed.expiresAt).to.equal(null);
  });

  it('no duration, or videos that disagree on it, confirm nothing (the task goes to review)', () => {
    const without = { ...task, task_result: { videos: [{ id: 'v-1', url: 'https://cdn.example.com/k.mp4' }] } };
    expect(parseKlingTask(without, ref).deliveredSeconds).to.equal(undefined);
    const two = { ...task, task_result: { videos: [task.task_result.videos[0], { id: 'v-2', url: 'https://cdn.example.com/l.mp4', duration: '5' }] } };
    expect(parseKlingTask(two, ref).deliveredSeconds).to.equal(undefined);
    expect(parseKlingTask({ ...task, task_result: {} }, ref)).to.deep.include({ deliveredSeconds: undefined, assetUrl: undefined });
  });
});

describe('Kling adapter: refusals, mapped by Kling’s code', () => {
  const refusal = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
    new UpstreamError('status', status === 429 || status >= 500, status, JSON.stringify({ code, message, request_id: 'req-1' }), undefined, headers);

  it('1303 (account concurrency full) is a 429 in the OpenAI shape with code provider_concurrency', () => {
    const mapped = mapCreateRefusal(refusal(429, 1303, 'parallel task over resource pack limit'));
    expect(mapped).to.include({ kind: 'status', retryable: true, status: 429, upstreamRequestId: 'req-1' });
    expect(JSON.parse(mapped.body!)).to.deep.equal({
      error: {
        message: 'The provider account is running as many tasks as it allows; retry later. Nothing was charged.',
        type: 'rate_limit_error',
        code: 'provider_concurrency',
      },
    });
  });

  it('arrears, an exhausted pack, an account exception, an IP whitelist: a 503 of the provider account, never a rate limit', () => {
    for (const code of [1100, 1101, 1102, 1304]) {
      const mapped = mapCreateRefusal(refusal(429, code, 'Account in arrears'));
      expect(mapped, String(code)).to.include({ status: 503, retryable: false });
    }
  });

  it('an unknown model or method is the gateway’s mistake (502); the rest keep their status', () => {
    expect(mapCreateRefusal(refusal(404, 1203, 'model not found')).status).to.equal(502);
    expect(mapCreateRefusal(refusal(400, 1301, 'content security')).status).to.equal(400);
    expect(mapCreateRefusal(refusal(401, 1002, 'Authorization is invalid')).status).to.equal(401);
    const rate = mapCreateRefusal(refusal(429, 1302, 'too fast', { 'retry-after': '2' }));
    expect(rate).to.include({ status: 429, retryable: true });
    expect(rate.headers).to.deep.equal({ 'retry-after': '2' });
    const plain = new UpstreamError('status', true, 502, '<html>bad gateway</html>');
    expect(mapCreateRefusal(plain)).to.equal(plain);
  });

  it('an answer with a non-zero code and HTTP 200 takes the status of Kling’s table', () => {
    expect(codeError(200, { code: 1303, message: 'parallel task over resource pack limit' }).status).to.equal(429);
    expect(mapCreateRefusal(codeError(200, { code: 1303, message: 'x' })).body).to.include('provider_concurrency');
    expect(codeError(200, { code: 1201, message: 'bad' })).to.include({ status: 400, retryable: false });
    expect(codeError(200, { code: 9999, message: '?' }).status).to.equal(502);
  });
});
