import { expect } from 'chai';
import { VIDEO_PROTOCOL_TRAITS } from '../../../src/catalogue/video-protocols.ts';
import { arkBody, parseArkTask } from '../../../src/providers/ark/adapter.ts';
import { assetUrlAllowed } from '../../../src/providers/asset.ts';
import { minimaxBody, parseMiniMaxTask } from '../../../src/providers/minimax/adapter.ts';
import { parseVideo, soraBody } from '../../../src/providers/openai-videos/adapter.ts';
import type { NormalisedVideoRequest } from '../../../src/providers/video.ts';
import { validateUpstreamRequest, validateUpstreamResponse } from '../../helpers/upstream-contract.ts';

const base: NormalisedVideoRequest = {
  model: 'x/y',
  content: [{ type: 'text', text: 'a cat' }],
  seconds: 5,
  resolution: '720p',
  ratio: null,
  size: null,
  reference_images: [],
  generate_audio: null,
  watermark: null,
};
const image = (role?: string) => ({ type: 'image_url' as const, image_url: { url: 'https://example.com/a.png' }, ...(role ? { role } : {}) });
const documented = (api: Parameters<typeof validateUpstreamRequest>[0], path: string, body: unknown) =>
  validateUpstreamRequest(api, 'POST', path, body, 'application/json', { documentedOnly: true });

// Each adapter's body for every option its protocol carries (video-protocols.ts), checked against
// the provider's contract with only documented fields allowed: an adapter that sent a field or a
// value the provider does not take would fail here.
describe('video adapters: what they send is on the provider contract, and nothing is dropped', () => {
  it('Ark: content items, references, resolution, ratio, duration, watermark, generate_audio', () => {
    const request: NormalisedVideoRequest = {
      ...base,
      content: [{ type: 'text', text: 'a cat' }, image('first_frame'), image('last_frame')],
      ratio: '9:16',
      size: '720x1280',
      reference_images: [{ url: 'https://example.com/r.png' }],
      generate_audio: true,
      watermark: false,
    };
    const body = arkBody('doubao-seedance-1-5-pro-251215', request);
    expect(body).to.deep.equal({
      model: 'doubao-seedance-1-5-pro-251215',
      content: [...request.content, { type: 'image_url', image_url: { url: 'https://example.com/r.png' }, role: 'reference_image' }],
      resolution: '720p',
      ratio: '9:16',
      duration: 5,
      watermark: false,
      generate_audio: true,
    });
    expect(documented('ark-video-tasks', '/contents/generations/tasks', body)).to.deep.equal([]);
    expect(documented('ark-video-tasks', '/contents/generations/tasks', arkBody('m', base))).to.deep.equal([]);
    for (const resolution of VIDEO_PROTOCOL_TRAITS['ark-video'].resolutions!) {
      for (const ratio of VIDEO_PROTOCOL_TRAITS['ark-video'].ratios!)
        expect(documented('ark-video-tasks', '/contents/generations/tasks', arkBody('m', { ...base, resolution, ratio }))).to.deep.equal([]);
    }
  });

  it('MiniMax H3: one text item, references as reference_image items, aigc_watermark; no sound switch to send', () => {
    const request: NormalisedVideoRequest = {
      ...base,
      resolution: '2K',
      ratio: '16:9',
      seconds: 6,
      reference_images: [{ url: 'https://example.com/r.png' }],
      watermark: true,
    };
    const body = minimaxBody('MiniMax-H3', request);
    expect(body).to.deep.equal({
      model: 'MiniMax-H3',
      content: [
        { type: 'text', text: 'a cat' },
        { type: 'image_url', image_url: { url: 'https://example.com/r.png' }, role: 'reference_image' },
      ],
      resolution: '2K',
      duration: 6,
      ratio: '16:9',
      aigc_watermark: true,
    });
    expect(documented('minimax-video-v2', '/v2/video_generation', body)).to.deep.equal([]);
    expect(VIDEO_PROTOCOL_TRAITS['minimax-video-v2'].audio).to.equal(false); // generate_audio is refused before
  });

  it('OpenAI videos: prompt, seconds as a string, size, input_reference; nothing else', () => {
    const body = soraBody('sora-2', {
      ...base,
      seconds: 8,
      size: '1024x1792',
      resolution: '1024p',
      ratio: '4:7',
      content: [{ type: 'text', text: 'a cat' }, image('first_frame')],
    });
    expect(body).to.deep.equal({
      model: 'sora-2',
      prompt: 'a cat',
      seconds: '8',
      size: '1024x1792',
      input_reference: { image_url: 'https://example.com/a.png' },
    });
    expect(documented('openai-videos', '/videos', body)).to.deep.equal([]);
    for (const size of VIDEO_PROTOCOL_TRAITS['openai-videos'].sizes!) {
      for (const seconds of VIDEO_PROTOCOL_TRAITS['openai-videos'].seconds!)
        expect(documented('openai-videos', '/videos', soraBody('sora-2', { ...base, seconds, size }))).to.deep.equal([]);
    }
    // Older rows without a size: from the tier and ratio.
    expect(soraBody('sora-2', { ...base, seconds: 4, size: undefined, ratio: '9:16' }).size).to.equal('720x1280');
  });

  it('the contract check catches a field the provider does not document, or a value it does not take', () => {
    expect(documented('openai-videos', '/videos', { ...soraBody('sora-2', { ...base, seconds: 4, size: '1280x720' }), generate_audio: true })).to.deep.equal([
      'body: unknown field "generate_audio" (the upstream refuses unknown fields)',
    ]);
    expect(documented('openai-videos', '/videos', soraBody('sora-2', { ...base, seconds: 5, size: '1280x720' }))).to.have.length(1);
    expect(documented('ark-video-tasks', '/contents/generations/tasks', arkBody('m', { ...base, resolution: '4k' }))).to.have.length(1);
  });

  it('reads each provider’s finished task: delivered seconds, tier, and when its files expire', () => {
    const ark = {
      id: 'cgt-1',
      model: 'm',
      status: 'succeeded',
      content: { video_url: 'https://cdn.example.com/v.mp4' },
      usage: { completion_tokens: 1, total_tokens: 1 },
      created_at: 1779348818,
      updated_at: 1779348874,
      resolution: '720p',
      duration: 5,
    };
    expect(validateUpstreamResponse('ark-video-tasks', 'GET', '/contents/generations/tasks/cgt-1', 200, ark)).to.deep.equal([]);
    expect(parseArkTask(ark)).to.deep.include({
      status: 'completed',
      deliveredSeconds: 5,
      deliveredResolution: '720p',
      assetUrl: 'https://cdn.example.com/v.mp4',
      expiresAt: 1779348874 + 86400,
    });
    expect(parseArkTask({ ...ark, status: 'expired', content: undefined, error: null })).to.deep.include({
      status: 'failed',
      error: { code: 'expired', message: 'The provider expired the task before it ran; nothing was charged.' },
    });

    const h3 = {
      id: '424010985738629',
      status: 'succeeded',
      created_at: 1785125529,
      content: { url: 'https://cdn.example.com/h.mp4' },
      resolution: '2K',
      duration: 5,
      usage: { total_seconds: 5, output_seconds: 5 },
    };
    expect(validateUpstreamResponse('minimax-video-v2', 'GET', '/v2/query/video_generation/424010985738629', 200, { task: h3 })).to.deep.equal([]);
    expect(parseMiniMaxTask(h3)).to.deep.include({
      status: 'completed',
      deliveredSeconds: 5,
      deliveredResolution: '2K',
      assetUrl: 'https://cdn.example.com/h.mp4',
    });

    const video = {
      id: 'video_1',
      object: 'video',
      model: 'sora-2',
      status: 'completed',
      progress: 100,
      created_at: 1,
      completed_at: 2,
      expires_at: 3602,
      prompt: 'a',
      seconds: '8',
      size: '720x1280',
      remixed_from_video_id: null,
      error: null,
    };
    expect(validateUpstreamResponse('openai-videos', 'GET', '/videos/video_1', 200, video)).to.deep.equal([]);
    expect(parseVideo(video)).to.deep.include({
      status: 'completed',
      deliveryConfirmed: true,
      deliveredSeconds: '8',
      deliveredResolution: '720p',
      expiresAt: 3602,
    });
    expect(parseVideo({ ...video, status: 'in_progress', progress: 33.3 })).to.deep.include({ deliveryConfirmed: false, progress: 33 });
  });
});

describe('video downloads: which URLs the gateway fetches', () => {
  const provider = (baseUrl: string) => ({
    id: 'p',
    protocol: 'ark-video' as const,
    sandbox: false,
    baseUrl,
    timeouts: { connect_ms: 1, first_byte_ms: 1, response_ms: 1, idle_ms: 1 },
    credential: () => 'k',
  });
  it('supplier URLs must be https; http only when the provider itself is reached over http (local, tests)', () => {
    expect(assetUrlAllowed(provider('https://ark.example.com/api/v3'), 'https://cdn.example.com/v.mp4')).to.equal(true);
    expect(assetUrlAllowed(provider('https://ark.example.com/api/v3'), 'http://cdn.example.com/v.mp4')).to.equal(false);
    expect(assetUrlAllowed(provider('http://127.0.0.1:9000'), 'http://127.0.0.1:9000/assets/a.mp4')).to.equal(true);
    for (const url of ['file:///etc/passwd', 'ftp://x/y', 'data:video/mp4;base64,AAAA', '//cdn.example.com/v.mp4'])
      expect(assetUrlAllowed(provider('http://127.0.0.1:9000'), url), url).to.equal(false);
  });
});
