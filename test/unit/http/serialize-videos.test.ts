import { expect } from 'chai';
import type { VideoTaskRow } from '../../../src/domain/videos/kind.ts';
import { TaskStatus as VideoStatus } from '../../../src/tasks/model.ts';
import { videoTaskToWire } from '../../../src/http/serialize/videos.ts';

export function taskRow(overrides: Partial<VideoTaskRow> = {}): VideoTaskRow {
  const at = new Date('2026-11-24T10:00:00Z');
  return {
    id: 'vt_abc',
    kind: 'video',
    customer_id: 'cus_1',
    key_id: 'key_1',
    model_id: 'sandbox/h3',
    provider_id: 'sandbox-minimax',
    upstream_model: 'MiniMax-H3',
    upstream_task_id: '424010985738629',
    status: VideoStatus.Completed,
    upstream_status: 'succeeded',
    progress: 100,
    request: {
      model: 'sandbox/h3',
      content: [{ type: 'text', text: 'a cat' }],
      seconds: 5,
      resolution: '768P',
      ratio: '16:9',
      size: null,
      reference_images: [],
      generate_audio: null,
      watermark: null,
    },
    price: { per_second: { '768P': '0.08' }, currency: 'USD' },
    price_version_id: 1n,
    reserved: 400000n,
    idempotency_key: null,
    request_hash: 'h',
    error: null,
    result: null,
    billed_seconds: 5,
    billed_tier: '768P',
    billed_amount: 400000n,
    attempts: 1,
    next_poll_at: null,
    lease_until: null,
    deadline_at: at,
    cancellable: false,
    expires_at: null,
    created_at: at,
    updated_at: at,
    completed_at: at,
    ...overrides,
  };
}

describe('video task serialisation', () => {
  it('replaces upstream ids given as strings or as numbers, and the upstream model name, everywhere in the result', () => {
    const wire = videoTaskToWire(
      taskRow({
        result: {
          id: 424010985738629,
          task_id: '424010985738629',
          model: 'MiniMax-H3',
          nested: [{ task: 424010985738629 }],
          duration: 5,
          content: { url: 'https://cdn.example.com/424010985738629.mp4' },
        },
      }),
    );
    expect(wire.result).to.deep.equal({
      id: 'vt_abc',
      task_id: 'vt_abc',
      model: 'sandbox/h3',
      nested: [{ task: 'vt_abc' }],
      duration: 5,
      content: { url: 'https://cdn.example.com/424010985738629.mp4' },
    });
  });
});
