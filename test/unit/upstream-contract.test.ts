import { expect } from 'chai';
import { formFields, validateSseEvent, validateSseStream, validateUpstreamRequest, validateUpstreamResponse } from '../helpers/upstream-contract.ts';

// Samples follow the upstream documentation (openapi/upstream/README.md); ids are made up.

const without = <T extends object>(value: T, field: keyof T): Partial<T> => {
  const copy = { ...value };
  delete copy[field];
  return copy;
};

const sse = (frames: Array<{ event?: string; data: unknown }>) =>
  frames.map((f) => `${f.event ? `event: ${f.event}\n` : ''}data: ${typeof f.data === 'string' ? f.data : JSON.stringify(f.data)}\n\n`).join('');

describe('upstream contracts', () => {
  describe('anthropic-messages', () => {
    const request = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [
        { role: 'user', content: 'What is the weather in Paris?' },
        { role: 'system', content: 'Mid-conversation instruction.' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'The user wants weather.', signature: 'sig' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18 C' }] },
      ],
      tools: [
        { name: 'get_weather', description: 'Weather by city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      ],
      tool_choice: { type: 'auto' },
      stream: false,
      metadata: { user_id: 'u-123' },
    };
    const message = {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'Mild, 18 C.', citations: null }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: {
        input_tokens: 120,
        output_tokens: 9,
        cache_creation_input_tokens: 40,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 40 },
        server_tool_use: { web_search_requests: 1, web_fetch_requests: 0 },
        output_tokens_details: { thinking_tokens: 3 },
        service_tier: 'standard',
        inference_geo: 'us',
      },
    };

    it('accepts a Messages request with tools, thinking blocks and a system-role message', () => {
      expect(validateUpstreamRequest('anthropic-messages', 'POST', '/v1/messages', request)).to.deep.equal([]);
    });

    it('accepts the 2026 request fields', () => {
      const body = {
        ...request,
        thinking: { type: 'adaptive', display: 'omitted' },
        output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } },
        context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
        inference_geo: 'eu',
        speed: 'fast',
        service_tier: 'standard_only',
        container: { id: 'container_1', skills: [{ skill_id: 'pptx', type: 'anthropic' }] },
        cache_control: { type: 'ephemeral' },
      };
      expect(validateUpstreamRequest('anthropic-messages', 'POST', '/v1/messages?beta=true', body)).to.deep.equal([]);
    });

    it('reports a missing required field and a bad value where they are', () => {
      expect(validateUpstreamRequest('anthropic-messages', 'POST', '/v1/messages', without(request, 'max_tokens'))).to.deep.equal([
        'body: missing required field "max_tokens"',
      ]);
      const badBlock = {
        ...request,
        messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'AA' } }] }],
      };
      expect(validateUpstreamRequest('anthropic-messages', 'POST', '/v1/messages', badBlock)).to.deep.equal([
        'body.messages[0].content[0].source.media_type: "image/bmp" is not one of "image/jpeg", "image/png", "image/gif", "image/webp"',
      ]);
      const badThinking = { ...request, thinking: { type: 'enabled' } };
      expect(validateUpstreamRequest('anthropic-messages', 'POST', '/v1/messages', badThinking)).to.deep.equal([
        'body.thinking: missing required field "budget_tokens"',
      ]);
    });

    it('leaves the body open: neither the SDK nor the docs say unknown fields are refused', () => {
      expect(validateUpstreamRequest('anthropic-messages', 'POST', '/v1/messages', { ...request, response_format: { type: 'json' } })).to.deep.equal([]);
    });

    it('accepts a Message and an error body, and refuses an error without its type', () => {
      expect(validateUpstreamResponse('anthropic-messages', 'POST', '/v1/messages', 200, message, 'application/json')).to.deep.equal([]);
      const overloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_1' };
      expect(validateUpstreamResponse('anthropic-messages', 'POST', '/v1/messages', 529, overloaded)).to.deep.equal([]);
      expect(validateUpstreamResponse('anthropic-messages', 'POST', '/v1/messages', 529, without(overloaded, 'type'))).to.deep.equal([
        'response: missing required field "type"',
      ]);
      expect(validateUpstreamResponse('anthropic-messages', 'POST', '/v1/messages', 200, without(message, 'usage'))).to.deep.equal([
        'response: missing required field "usage"',
      ]);
    });

    it('counts tokens: request without max_tokens, and the count', () => {
      const count = { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hello' }], system: 'Be brief.', cache_control: { type: 'ephemeral' } };
      expect(validateUpstreamRequest('anthropic-messages', 'POST', '/v1/messages/count_tokens', count)).to.deep.equal([]);
      expect(validateUpstreamRequest('anthropic-messages', 'POST', '/v1/messages/count_tokens', without(count, 'messages'))).to.deep.equal([
        'body: missing required field "messages"',
      ]);
      expect(validateUpstreamRequest('anthropic-messages', 'POST', '/v1/messages/count_tokens', { ...count, model: 7 })).to.deep.equal([
        'body.model: must be string, got integer',
      ]);
      expect(validateUpstreamResponse('anthropic-messages', 'POST', '/v1/messages/count_tokens', 200, { input_tokens: 2095 })).to.deep.equal([]);
      expect(validateUpstreamResponse('anthropic-messages', 'POST', '/v1/messages/count_tokens', 200, {})).to.deep.equal([
        'response: missing required field "input_tokens"',
      ]);
    });

    describe('stream events', () => {
      const events = [
        { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 25, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
        { type: 'ping' },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm.' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
        { type: 'content_block_stop', index: 1 },
        {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 15, input_tokens: 25, cache_read_input_tokens: null, server_tool_use: { web_search_requests: 0, web_fetch_requests: 1 } },
        },
        { type: 'message_stop' },
      ];

      it('accepts every event type of a stream', () => {
        for (const event of events) expect(validateSseEvent('anthropic-messages', event), event.type).to.deep.equal([]);
        const error = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
        expect(validateSseEvent('anthropic-messages', JSON.stringify(error))).to.deep.equal([]);
      });

      it('refuses malformed events', () => {
        expect(validateSseEvent('anthropic-messages', { type: 'content_block_delta', delta: { type: 'text_delta', text: 'Hi' } })).to.deep.equal([
          'event: missing required field "index"',
        ]);
        expect(validateSseEvent('anthropic-messages', { type: 'content_block_delta', index: 0, delta: { type: 'text', text: 'Hi' } })).to.deep.equal([
          'event.delta.type: "text" is not one of "text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta"',
        ]);
        expect(validateSseEvent('anthropic-messages', { type: 'message_delta', delta: { stop_reason: 'done' }, usage: {} })).to.deep.equal([
          'event.delta.stop_reason: "done" is not one of "end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal", "model_context_window_exceeded", null',
          'event.usage: missing required field "output_tokens"',
        ]);
        expect(validateSseEvent('anthropic-messages', 'not json')).to.deep.equal(['event: data is not JSON: "not json"']);
      });

      it('checks a whole stream, including the event name of every frame', () => {
        const text = sse(events.map((data) => ({ event: data.type, data })));
        expect(validateSseStream('anthropic-messages', text)).to.deep.equal([]);
        expect(validateUpstreamResponse('anthropic-messages', 'POST', '/v1/messages', 200, text, 'text/event-stream; charset=utf-8')).to.deep.equal([]);

        const unnamed = sse([{ data: { type: 'ping' } }]);
        expect(validateSseStream('anthropic-messages', unnamed)).to.deep.equal([
          'frame 0: no "event:" line (clients drop such frames); expected "event: ping"',
        ]);
        const misnamed = sse([{ event: 'message', data: { type: 'message_stop' } }]);
        expect(validateSseStream('anthropic-messages', misnamed)).to.deep.equal(['frame 0: "event: message" differs from data.type "message_stop"']);
      });
    });
  });

  describe('openai-chat-completions', () => {
    const request = {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      ],
      max_completion_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
    };
    const completion = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1738960610,
      model: 'gpt-4o-mini-2024-07-18',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!', refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: {
        prompt_tokens: 9,
        completion_tokens: 2,
        total_tokens: 11,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    };
    const chunk = (fields: Record<string, unknown>): Record<string, unknown> => ({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1738960610,
      model: 'gpt-4o-mini',
      ...fields,
    });

    it('accepts a request, and reports a missing required field', () => {
      expect(validateUpstreamRequest('openai-chat-completions', 'POST', '/chat/completions', request)).to.deep.equal([]);
      expect(validateUpstreamRequest('openai-chat-completions', 'POST', '/chat/completions', without(request, 'messages'))).to.deep.equal([
        'body: missing required field "messages"',
      ]);
      const noContent = { ...request, messages: [{ role: 'user' }] };
      expect(validateUpstreamRequest('openai-chat-completions', 'POST', '/chat/completions', noContent)).to.deep.equal([
        'body.messages[0]: missing required field "content"',
      ]);
    });

    it('refuses an unknown top-level field (OpenAI: 400 "Unrecognized request argument supplied")', () => {
      expect(validateUpstreamRequest('openai-chat-completions', 'POST', '/chat/completions', { ...request, thinking: { type: 'enabled' } })).to.deep.equal([
        'body: unknown field "thinking" (the upstream refuses unknown fields)',
      ]);
    });

    it('accepts a completion and an error body', () => {
      expect(validateUpstreamResponse('openai-chat-completions', 'POST', '/chat/completions', 200, completion)).to.deep.equal([]);
      expect(validateUpstreamResponse('openai-chat-completions', 'POST', '/chat/completions', 200, without(completion, 'choices'))).to.deep.equal([
        'response: missing required field "choices"',
      ]);
      const error = { error: { message: 'Unrecognized request argument supplied: thinking', type: 'invalid_request_error', param: null, code: null } };
      expect(validateUpstreamResponse('openai-chat-completions', 'POST', '/chat/completions', 400, error)).to.deep.equal([]);
      expect(validateUpstreamResponse('openai-chat-completions', 'POST', '/chat/completions', 429, error)).to.deep.equal([]);
    });

    it('accepts stream chunks, the usage chunk and [DONE]', () => {
      const first = chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
      const last = chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      const usage = chunk({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } });
      for (const data of [first, last, usage, '[DONE]']) expect(validateSseEvent('openai-chat-completions', data)).to.deep.equal([]);
      expect(validateSseEvent('openai-chat-completions', without(first, 'choices'))).to.deep.equal(['event: missing required field "choices"']);

      const text = sse([{ data: first }, { data: last }, { data: usage }, { data: '[DONE]' }]);
      expect(validateUpstreamResponse('openai-chat-completions', 'POST', '/chat/completions', 200, text, 'text/event-stream')).to.deep.equal([]);
      expect(validateSseStream('openai-chat-completions', sse([{ data: first }]))).to.deep.equal(['stream: does not end with "data: [DONE]"']);
    });
  });

  describe('openai-videos', () => {
    const video = {
      id: 'video_68e1',
      object: 'video',
      model: 'sora-2',
      status: 'in_progress',
      progress: 40,
      created_at: 1759938772,
      completed_at: null,
      expires_at: null,
      prompt: 'a cat',
      size: '1280x720',
      seconds: '8',
      remixed_from_video_id: null,
      error: null,
    };

    it('creates from multipart (as openai-node sends it) and from JSON', () => {
      const form = new FormData();
      form.append('prompt', 'a cat');
      form.append('model', 'sora-2');
      form.append('seconds', '8');
      form.append('size', '1280x720');
      form.append('input_reference[image_url]', 'https://example.com/cat.png');
      expect(validateUpstreamRequest('openai-videos', 'POST', '/videos', form, 'multipart/form-data; boundary=x')).to.deep.equal([]);
      const upload = { prompt: 'a cat', input_reference: new Uint8Array([0x89, 0x50]) };
      expect(validateUpstreamRequest('openai-videos', 'POST', '/videos', upload, 'multipart/form-data')).to.deep.equal([]);
      expect(validateUpstreamRequest('openai-videos', 'POST', '/videos', { prompt: 'a cat', seconds: '4' }, 'application/json')).to.deep.equal([]);
      expect(validateUpstreamResponse('openai-videos', 'POST', '/videos', 200, { ...video, status: 'queued', progress: 0 })).to.deep.equal([]);
    });

    it('reports a missing prompt and a number where OpenAI wants the string "8"', () => {
      expect(validateUpstreamRequest('openai-videos', 'POST', '/videos', { model: 'sora-2' }, 'multipart/form-data')).to.deep.equal([
        'body: missing required field "prompt"',
      ]);
      expect(validateUpstreamRequest('openai-videos', 'POST', '/videos', { prompt: 'a cat', seconds: 8 }, 'application/json')).to.deep.equal([
        'body.seconds: must be string, got integer',
      ]);
    });

    it('leaves the create body open (no evidence that OpenAI refuses extra fields here)', () => {
      expect(validateUpstreamRequest('openai-videos', 'POST', '/videos', { prompt: 'a cat', resolution: '720p' }, 'application/json')).to.deep.equal([]);
    });

    it('retrieves, lists and deletes', () => {
      expect(validateUpstreamRequest('openai-videos', 'GET', '/videos/video_68e1', undefined)).to.deep.equal([]);
      expect(validateUpstreamResponse('openai-videos', 'GET', '/videos/video_68e1', 200, video)).to.deep.equal([]);
      expect(validateUpstreamResponse('openai-videos', 'GET', '/videos/video_68e1', 200, without(video, 'seconds'))).to.deep.equal([
        'response: missing required field "seconds"',
      ]);

      expect(validateUpstreamRequest('openai-videos', 'GET', '/videos?limit=20&order=desc&after=video_1', undefined)).to.deep.equal([]);
      expect(validateUpstreamRequest('openai-videos', 'GET', '/videos?limit=500', undefined)).to.deep.equal(['query.limit: must be <= 100']);
      const list = { object: 'list', data: [video], first_id: 'video_68e1', last_id: 'video_68e1', has_more: false };
      expect(validateUpstreamResponse('openai-videos', 'GET', '/videos', 200, list)).to.deep.equal([]);
      expect(validateUpstreamResponse('openai-videos', 'GET', '/videos', 200, without(list, 'has_more'))).to.deep.equal([
        'response: missing required field "has_more"',
      ]);

      const deleted = { id: 'video_68e1', object: 'video.deleted', deleted: true };
      expect(validateUpstreamRequest('openai-videos', 'DELETE', '/videos/video_68e1', undefined)).to.deep.equal([]);
      expect(validateUpstreamResponse('openai-videos', 'DELETE', '/videos/video_68e1', 200, deleted)).to.deep.equal([]);
      expect(validateUpstreamResponse('openai-videos', 'DELETE', '/videos/video_68e1', 200, without(deleted, 'deleted'))).to.deep.equal([
        'response: missing required field "deleted"',
      ]);
      const notFound = { error: { message: 'Video not found.', type: 'invalid_request_error', param: null, code: null } };
      expect(validateUpstreamResponse('openai-videos', 'GET', '/videos/video_x', 404, notFound)).to.deep.equal([]);
      expect(validateUpstreamResponse('openai-videos', 'GET', '/videos/video_x', 404, { message: 'Video not found.' })).to.deep.equal([
        'response: missing required field "error"',
      ]);
    });

    it('downloads bytes for a known variant', () => {
      expect(validateUpstreamRequest('openai-videos', 'GET', '/videos/video_68e1/content?variant=thumbnail', undefined)).to.deep.equal([]);
      expect(validateUpstreamRequest('openai-videos', 'GET', '/videos/video_68e1/content?variant=gif', undefined)).to.deep.equal([
        'query.variant: "gif" is not one of "video", "thumbnail", "spritesheet"',
      ]);
      expect(validateUpstreamResponse('openai-videos', 'GET', '/videos/video_68e1/content', 200, Buffer.from('mp4'), 'video/mp4')).to.deep.equal([]);
      expect(validateUpstreamResponse('openai-videos', 'GET', '/videos/video_68e1/content', 200, Buffer.from('gif'), 'image/gif')).to.deep.equal([
        'GET /videos/{video_id}/content 200: content type image/gif is not declared (video/mp4, image/webp, application/json)',
      ]);
    });
  });

  describe('ark-video-tasks', () => {
    const create = {
      model: 'doubao-seedance-1-5-pro-251215',
      content: [
        { type: 'text', text: 'a cat yawning' },
        { type: 'image_url', image_url: { url: 'https://example.com/first.jpg' }, role: 'first_frame' },
        { type: 'image_url', image_url: { url: 'https://example.com/last.jpg' }, role: 'last_frame' },
      ],
      resolution: '720p',
      ratio: '16:9',
      duration: 5,
      seed: -1,
      camera_fixed: false,
      watermark: false,
      generate_audio: true,
      return_last_frame: false,
    };
    const task = {
      id: 'cgt-20250331175019-68d9t',
      model: 'doubao-seedance-1-5-pro-251215',
      status: 'succeeded',
      content: { video_url: 'https://ark-content-generation.example/v.mp4' },
      usage: { completion_tokens: 108900, total_tokens: 108900 },
      created_at: 1779348818,
      updated_at: 1779348874,
      seed: 78674,
      resolution: '720p',
      ratio: '16:9',
      duration: 5,
      framespersecond: 24,
      service_tier: 'default',
      execution_expires_after: 172800,
      generate_audio: true,
      draft: false,
      error: null,
    };
    const arkError = {
      error: {
        code: 'InvalidParameter',
        message: 'One or more parameters specified in the request are not valid. Request ID: 0217',
        param: 'content',
        type: 'BadRequest',
      },
    };

    it('creates a task', () => {
      expect(validateUpstreamRequest('ark-video-tasks', 'POST', '/contents/generations/tasks', create)).to.deep.equal([]);
      expect(validateUpstreamRequest('ark-video-tasks', 'POST', '/contents/generations/tasks', without(create, 'content'))).to.deep.equal([
        'body: missing required field "content"',
      ]);
      expect(
        validateUpstreamRequest('ark-video-tasks', 'POST', '/contents/generations/tasks', { ...create, content: [{ type: 'image_url', role: 'first_frame' }] }),
      ).to.deep.equal(['body.content[0]: missing required field "image_url"']);
      expect(validateUpstreamResponse('ark-video-tasks', 'POST', '/contents/generations/tasks', 200, { id: 'cgt-1' })).to.deep.equal([]);
      expect(validateUpstreamResponse('ark-video-tasks', 'POST', '/contents/generations/tasks', 400, arkError)).to.deep.equal([]);
    });

    it('retrieves a task in each of the six statuses', () => {
      for (const status of ['queued', 'running', 'cancelled', 'succeeded', 'failed', 'expired']) {
        const body = status === 'succeeded' ? task : { ...without(without(task, 'content'), 'usage'), status };
        expect(validateUpstreamResponse('ark-video-tasks', 'GET', '/contents/generations/tasks/cgt-1', 200, body), status).to.deep.equal([]);
      }
      const failed = { ...without(task, 'content'), status: 'failed', error: { code: 'OutputVideoSensitiveContentDetected', message: 'sensitive' } };
      expect(validateUpstreamResponse('ark-video-tasks', 'GET', '/contents/generations/tasks/cgt-1', 200, failed)).to.deep.equal([]);
      expect(validateUpstreamResponse('ark-video-tasks', 'GET', '/contents/generations/tasks/cgt-1', 200, { ...task, status: 'pending' })).to.deep.equal([
        'response.status: "pending" is not one of "queued", "running", "cancelled", "succeeded", "failed", "expired"',
      ]);
      expect(validateUpstreamResponse('ark-video-tasks', 'GET', '/contents/generations/tasks/cgt-1', 200, without(task, 'status'))).to.deep.equal([
        'response: missing required field "status"',
      ]);
    });

    it('cancels or deletes a task; errors carry code, message and type', () => {
      expect(validateUpstreamRequest('ark-video-tasks', 'DELETE', '/contents/generations/tasks/cgt-1', undefined)).to.deep.equal([]);
      expect(validateUpstreamResponse('ark-video-tasks', 'DELETE', '/contents/generations/tasks/cgt-1', 200, {})).to.deep.equal([]);
      expect(validateUpstreamResponse('ark-video-tasks', 'DELETE', '/contents/generations/tasks/cgt-1', 400, arkError)).to.deep.equal([]);
      expect(
        validateUpstreamResponse('ark-video-tasks', 'DELETE', '/contents/generations/tasks/cgt-1', 404, { error: { message: 'not found', type: 'NotFound' } }),
      ).to.deep.equal(['response.error: missing required field "code"']);
    });
  });

  describe('minimax-video-v2', () => {
    const create = {
      model: 'MiniMax-H3',
      content: [
        { type: 'text', text: 'A calico cat walks along a sunny windowsill.' },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png' }, role: 'reference_image' },
        { type: 'audio_url', audio_url: { url: 'https://example.com/purr.mp3' }, role: 'reference_audio' },
      ],
      resolution: '2K',
      duration: 6,
      ratio: '16:9',
      aigc_watermark: false,
    };
    const task = {
      id: '424010985738629',
      model: 'MiniMax-H3',
      status: 'succeeded',
      created_at: 1785125529,
      updated_at: 1785125946,
      content: { url: 'https://cdn.example.com/v.mp4' },
      resolution: '2K',
      duration: 6,
      ratio: '16:9',
      usage: { total_seconds: 6, input_seconds: 0, output_seconds: 6, input_image_count: 1 },
      task_type: 'generation',
      modality: 'video',
    };

    it('creates a task', () => {
      expect(validateUpstreamRequest('minimax-video-v2', 'POST', '/v2/video_generation', create)).to.deep.equal([]);
      expect(validateUpstreamRequest('minimax-video-v2', 'POST', '/v2/video_generation', without(create, 'model'))).to.deep.equal([
        'body: missing required field "model"',
      ]);
      expect(validateUpstreamRequest('minimax-video-v2', 'POST', '/v2/video_generation', { ...create, duration: 30 })).to.deep.equal([
        'body.duration: must be <= 15',
      ]);
      expect(validateUpstreamResponse('minimax-video-v2', 'POST', '/v2/video_generation', 200, { task_id: '424010985738629' })).to.deep.equal([]);
      const withBaseResp = { task_id: '424010985738629', base_resp: { status_code: 0, status_msg: 'success' } };
      expect(validateUpstreamResponse('minimax-video-v2', 'POST', '/v2/video_generation', 200, withBaseResp)).to.deep.equal([]);
    });

    it('queries a task', () => {
      expect(validateUpstreamRequest('minimax-video-v2', 'GET', '/v2/query/video_generation/424010985738629', undefined)).to.deep.equal([]);
      expect(validateUpstreamResponse('minimax-video-v2', 'GET', '/v2/query/video_generation/424010985738629', 200, { task })).to.deep.equal([]);
      const failed = {
        ...without(task, 'content'),
        status: 'failed',
        error: { code: '1026', message: 'video description contains sensitive content' },
        usage: {},
      };
      expect(validateUpstreamResponse('minimax-video-v2', 'GET', '/v2/query/video_generation/424010985738629', 200, { task: failed })).to.deep.equal([]);
      expect(
        validateUpstreamResponse('minimax-video-v2', 'GET', '/v2/query/video_generation/424010985738629', 200, { task: without(task, 'status') }),
      ).to.deep.equal(['response.task: missing required field "status"']);
    });

    it('accepts both documented error envelopes', () => {
      const v2 = { type: 'error', error: { type: 'bad_request_error', message: 'invalid params (2013)', http_code: '400' }, request_id: '0217' };
      expect(validateUpstreamResponse('minimax-video-v2', 'POST', '/v2/video_generation', 400, v2)).to.deep.equal([]);
      expect(
        validateUpstreamResponse('minimax-video-v2', 'GET', '/v2/query/video_generation/1', 404, { error: { message: 'task not found', http_code: '404' } }),
      ).to.deep.equal([]);
      const baseResp = { base_resp: { status_code: 1004, status_msg: 'login fail' } };
      expect(validateUpstreamResponse('minimax-video-v2', 'POST', '/v2/video_generation', 401, baseResp)).to.deep.equal([]);
      expect(validateUpstreamResponse('minimax-video-v2', 'POST', '/v2/video_generation', 400, { error: { message: 'bad' } })).to.not.deep.equal([]);
    });
  });

  describe('the validator', () => {
    it('names operations it does not know, and content types an operation does not take', () => {
      expect(validateUpstreamRequest('ark-video-tasks', 'PUT', '/contents/generations/tasks/cgt-1', {})).to.deep.equal([
        'PUT /contents/generations/tasks/cgt-1: method not in the ark-video-tasks contract (GET, DELETE are)',
      ]);
      expect(validateUpstreamRequest('openai-chat-completions', 'POST', '/v1/chat/completions', {})[0]).to.match(/no such path/);
      expect(validateUpstreamRequest('anthropic-messages', 'POST', '/v1/messages', 'x=1', 'application/x-www-form-urlencoded')).to.deep.equal([
        'content type application/x-www-form-urlencoded is not accepted by POST /v1/messages (application/json)',
      ]);
      expect(validateUpstreamResponse('ark-video-tasks', 'GET', '/contents/generations/tasks/cgt-1', 418, {})).to.deep.equal([
        'GET /contents/generations/tasks/{id}: status 418 is not declared (200, 401, 404, 429, 500)',
      ]);
    });

    it('folds bracketed multipart names into objects and arrays', () => {
      const fields = formFields([
        ['prompt', 'p'],
        ['input_reference[image_url]', 'https://x/y.png'],
        ['content[][type]', 'text'],
        ['content[][text]', 'hi'],
        ['content[][type]', 'image_url'],
        ['content[][image_url][url]', 'https://x/z.png'],
        ['tags[]', 'a'],
        ['tags[]', 'b'],
      ]);
      expect(fields).to.deep.equal({
        prompt: 'p',
        input_reference: { image_url: 'https://x/y.png' },
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image_url', image_url: { url: 'https://x/z.png' } },
        ],
        tags: ['a', 'b'],
      });
    });
  });
});
