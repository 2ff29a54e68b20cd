import { expect } from 'chai';
import { VIDEO_PROTOCOL_TRAITS } from '../../../src/catalogue/video-protocols.ts';
import { expiryOf, parseWanTask, wanBody } from '../../../src/providers/dashscope/adapter.ts';
import { submitRefusal } from '../../../src/providers/dashscope/errors.ts';
import { readUsage } from '../../../src/providers/dashscope/usage.ts';
import { UpstreamError } from '../../../src/providers/types.ts';
import type { NormalisedVideoRequest } from '../../../src/providers/video.ts';
import { validateUpstreamRequest, validateUpstreamResponse } from '../../helpers/upstream-contract.ts';

const CREATE = '/api/v1/services/aigc/video-generation/video-synthesis';
const base: NormalisedVideoRequest = {
  model: 'alibaba/wan2.7-t2v',
  content: [{ type: 'text', text: 'a cat' }],
  seconds: 5,
  resolution: '720p',
  ratio: null,
  size: null,
  reference_images: [],
  generate_audio: null,
  watermark: null,
};
const documented = (body: unknown) => validateUpstreamRequest('dashscope-video', 'POST', CREATE, body, 'application/json', { documentedOnly: true });
const succeeded = (usage: Record<string, unknown> | undefined, output: Record<string, unknown> = {}) => ({
  request_id: '7574ee8f-38a3-4b1e-9280-11c33ab46e51',
  output: {
    task_id: '0385dc79-5ff8-4d82-bcb6-0c46b17950d1',
    task_status: 'SUCCEEDED',
    submit_time: '2026-11-26 16:00:00.000',
    end_time: '2026-11-26 16:02:00.000',
    video_url: 'https://dashscope-result-sh.oss-accelerate.aliyuncs.com/x.mp4?Expires=1796374920&Signature=abc',
    ...output,
  },
  ...(usage ? { usage } : {}),
});

describe('DashScope (Wan) adapter: the body it sends is on the contract', () => {
  it('text-to-video: prompt, tier as DashScope spells it, ratio, duration, watermark; nothing else', () => {
    const body = wanBody('wan2.7-t2v', { ...base, resolution: '1080p', ratio: '9:16', size: '1080x1920', watermark: false });
    expect(body).to.deep.equal({
      model: 'wan2.7-t2v',
      input: { prompt: 'a cat' },
      parameters: { resolution: '1080P', ratio: '9:16', duration: 5, watermark: false },
    });
    expect(documented(body)).to.deep.equal([]);
    expect(wanBody('wan2.7-t2v', base)).to.deep.equal({ model: 'wan2.7-t2v', input: { prompt: 'a cat' }, parameters: { resolution: '720P', duration: 5 } });
    const traits = VIDEO_PROTOCOL_TRAITS['dashscope-video'];
    for (const resolution of traits.resolutions!)
      for (const ratio of traits.ratios!) expect(documented(wanBody('m', { ...base, resolution, ratio }))).to.deep.equal([]);
    for (const seconds of traits.seconds!) expect(documented(wanBody('m', { ...base, seconds }))).to.deep.equal([]);
  });

  it('inputs become media entries in order: frames by role, reference videos, audio, then reference_images', () => {
    const url = (name: string) => `https://example.com/${name}`;
    const body = wanBody('wan2.7-r2v', {
      ...base,
      content: [
        { type: 'text', text: 'Video 1 waves at Image 1' },
        { type: 'video_url', video_url: { url: url('v.mp4') }, role: 'reference_video' },
        { type: 'image_url', image_url: { url: url('i.png') }, role: 'reference_image' },
        { type: 'audio_url', audio_url: { url: url('a.mp3') }, role: 'reference_audio' },
      ],
      reference_images: [{ url: url('r.png') }],
    });
    expect(body.input).to.deep.equal({
      prompt: 'Video 1 waves at Image 1',
      media: [
        { type: 'reference_video', url: url('v.mp4') },
        { type: 'reference_image', url: url('i.png') },
        { type: 'reference_audio', url: url('a.mp3') },
        { type: 'reference_image', url: url('r.png') },
      ],
    });
    expect(documented(body)).to.deep.equal([]);
    const frames = wanBody('wan2.7-i2v', {
      ...base,
      content: [
        { type: 'text', text: 'a cat' },
        { type: 'image_url', image_url: { url: url('a.png') } },
        { type: 'image_url', image_url: { url: url('b.png') }, role: 'last_frame' },
      ],
    });
    expect((frames.input as { media: unknown }).media).to.deep.equal([
      { type: 'first_frame', url: url('a.png') },
      { type: 'last_frame', url: url('b.png') },
    ]);
    expect(documented(frames)).to.deep.equal([]);
    expect(documented({ ...frames, input: { prompt: 'x', media: [{ type: 'first_image', url: 'u' }] } })).to.not.deep.equal([]);
  });
});

describe('DashScope (Wan) adapter: reading a task', () => {
  it('settles on output + input video seconds at the tier usage.SR metered; the video expires when its URL says', () => {
    const body = succeeded({ duration: 5, input_video_duration: 0, output_video_duration: 5, video_count: 1, SR: 720 });
    expect(validateUpstreamResponse('dashscope-video', 'GET', '/api/v1/tasks/x', 200, body)).to.deep.equal([]);
    const poll = parseWanTask(body);
    expect(poll).to.deep.include({
      status: 'completed',
      upstreamStatus: 'SUCCEEDED',
      progress: 100,
      deliveredSeconds: '5.000',
      deliveredResolution: '720p',
      meteredTier: true,
      assetUrl: body.output.video_url,
      expiresAt: 1796374920,
      error: undefined,
    });
    expect(poll.contradiction).to.equal(undefined);
    expect(poll.raw).to.deep.equal({ output: body.output, usage: body.usage }); // no request_id
    // Reference clips are billed in fractions: summed exactly, rounded once by the domain.
    expect(readUsage({ duration: 6.65, input_video_duration: 1.65, output_video_duration: 5, SR: '1080' })).to.deep.equal({
      seconds: '6.650',
      tier: '1080p',
      contradiction: undefined,
    });
    expect(readUsage({ input_video_duration: 1.65 * 3, output_video_duration: 5 }).seconds).to.equal('9.950');
  });

  it('older models: video_duration and the tier of video_ratio; no usage or no output seconds leave nothing to settle on', () => {
    expect(readUsage({ video_duration: 5, video_ratio: '832*480', video_count: 1 })).to.deep.equal({
      seconds: '5.000',
      tier: '480p',
      contradiction: undefined,
    });
    expect(parseWanTask(succeeded(undefined))).to.deep.include({ status: 'completed', deliveredSeconds: undefined, deliveredResolution: undefined });
    expect(readUsage({ output_video_duration: 0, SR: 720 }).seconds).to.equal(undefined);
  });

  it('usage that contradicts itself is named, for review', () => {
    expect(readUsage({ duration: 9, input_video_duration: 0, output_video_duration: 5, SR: 720 }).contradiction).to.equal(
      "The provider's usage contradicts itself: usage.duration 9.000 s is not input 0.000 s + output 5.000 s.",
    );
    expect(readUsage({ output_video_duration: 5, SR: 1080, video_ratio: '1280*720' }).contradiction).to.match(
      /SR says 1080p but usage.video_ratio 1280\*720 is 720p/,
    );
    expect(readUsage({ output_video_duration: 5, SR: 720, video_count: 2 }).contradiction).to.match(/video_count is 2/);
    expect(parseWanTask(succeeded({ duration: 4, output_video_duration: 5, SR: 720 })).contradiction).to.match(/contradicts/);
  });

  it('maps every status; FAILED keeps its code, UNKNOWN is explained (never failed), CANCELED is cancelled', () => {
    const task = (task_status: string, extra: Record<string, unknown> = {}) =>
      parseWanTask({ request_id: 'r', output: { task_id: 't', task_status, ...extra } });
    expect(task('PENDING')).to.deep.include({ status: 'queued', progress: null, expiresAt: null });
    expect(task('RUNNING').status).to.equal('in_progress');
    expect(task('CANCELED').status).to.equal('cancelled');
    expect(task('FAILED', { code: 'DataInspectionFailed', message: 'Output data may contain inappropriate content.' })).to.deep.include({
      status: 'failed',
      error: { code: 'DataInspectionFailed', message: 'Output data may contain inappropriate content.' },
    });
    const unknown = task('UNKNOWN');
    expect(unknown.status).to.equal('unknown');
    expect(unknown.error?.code).to.equal('upstream_task_unknown');
    expect(unknown.error?.message).to.match(/24-hour retention/);
    expect(task('PAUSED')).to.deep.include({ status: 'unknown', error: undefined });
  });

  it('expiry: the signed URL’s Expires, else 24 h after end_time read as UTC+8', () => {
    expect(expiryOf('https://x.example/v.mp4?Expires=1796374920&Signature=s', '2026-11-26 16:02:00.000')).to.equal(1796374920);
    expect(expiryOf('https://x.example/v.mp4', '2026-11-26 16:02:00.000')).to.equal(Date.parse('2026-11-26T08:02:00Z') / 1000 + 86_400);
    expect(expiryOf(undefined, 'yesterday')).to.equal(null);
  });
});

describe('DashScope (Wan) adapter: refusals on submit', () => {
  const refusal = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
    submitRefusal(new UpstreamError('status', status >= 500, status, JSON.stringify({ request_id: 'r-1', code, message }), 'r-1', headers));

  it('any Throttling code is the account’s limit: 429 in OpenAI’s shape with code provider_concurrency, retryable', () => {
    for (const [status, code] of [
      [429, 'Throttling.RateQuota'],
      [429, 'Throttling'],
      [400, 'Throttling.AllocationQuota'],
    ] as const) {
      const error = refusal(status, code, 'Requests rate limit exceeded, please try again later.', { 'retry-after': '3' });
      expect(error).to.include({ kind: 'status', retryable: true, status: 429 });
      expect(JSON.parse(error.body!)).to.deep.equal({
        error: { message: 'The provider account is at its limit of concurrent tasks; retry later.', type: 'rate_limit_error', code: 'provider_concurrency' },
      });
      expect(error.headers).to.deep.equal({ 'retry-after': '3' });
    }
  });

  it('arrears are a provider-account failure, not forwarded; invalid parameters stay a 400 with DashScope’s message', () => {
    const arrears = refusal(400, 'Arrearage', 'Access denied, plesase make sure your account is in good standing.');
    expect(arrears).to.include({ status: 503, retryable: false });
    expect(JSON.parse(arrears.body!)).to.deep.equal({
      error: { message: 'The provider account is in arrears (DashScope Arrearage) and takes no tasks.', type: 'api_error', code: 'provider_account' },
    });
    const invalid = refusal(400, 'InvalidParameter', 'The parameter `parameters.duration` is out of range: 40.');
    expect(invalid).to.include({ status: 400, retryable: false });
    expect(JSON.parse(invalid.body!).error).to.deep.include({ message: 'The parameter `parameters.duration` is out of range: 40', code: 'InvalidParameter' });
    const auth = refusal(401, 'InvalidApiKey', 'Invalid API-key provided.');
    expect(auth.status).to.equal(401); // the domain answers 502: our credential, not the customer's request
    const timeout = new UpstreamError('timeout', true);
    expect(submitRefusal(timeout)).to.equal(timeout);
  });
});
