import { expect } from 'chai';
import { estimateJsonTokens, estimateTokens, TextTally } from '../../../src/domain/passthrough/estimate.ts';
import { DEFAULT_MEDIA_TOKENS, mediaAllowance } from '../../../src/domain/passthrough/media.ts';

describe('token estimates', () => {
  it('counts about four characters a token, and one a CJK character', () => {
    expect(estimateTokens('')).to.equal(0);
    expect(estimateTokens('abcd')).to.equal(1);
    expect(estimateTokens('abcde')).to.equal(2);
    expect(estimateTokens('你好世界')).to.equal(4);
    expect(estimateTokens('hi 你好')).to.equal(2 + 1);
  });

  it('keeps counts, not text: a tally of many pieces equals the estimate of their concatenation', () => {
    const tally = new TextTally();
    const pieces = Array.from({ length: 1000 }, (_, i) => `piece ${i} 文字 `);
    for (const piece of pieces) tally.add(piece);
    expect(tally.tokens()).to.equal(estimateTokens(pieces.join('')));
  });

  it('walks any JSON without recursion: 200,000 levels of nesting neither throw nor overflow', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = i % 2 ? [deep] : { k: deep };
    expect(estimateJsonTokens(deep)).to.be.greaterThan(0);
  });

  it('counts numbers and booleans by their text, keys too, nulls not at all', () => {
    expect(estimateJsonTokens({ a: [1, 22, 333, true, false, null, 'x'] })).to.equal(5); // 17 characters
    expect(estimateJsonTokens(new Array(1_000_000).fill(7))).to.equal(250_000);
  });

  it('counts base64 media as a flat allowance, keys and values as text', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(1_000_000) } };
    expect(estimateJsonTokens(image)).to.be.lessThan(2_000);
    expect(estimateJsonTokens({ url: 'data:image/png;base64,AAAA' })).to.be.greaterThan(1_500);
    expect(estimateJsonTokens({ future_block: { text: 'abcd'.repeat(100) } })).to.be.greaterThan(100);
  });
});

describe('media blocks held at their allowance (issue 33, item 2)', () => {
  const text = (value: unknown) => estimateJsonTokens(value);
  it('holds an Anthropic image or PDF by the protocol default, whatever its URL or base64 length', () => {
    const media = mediaAllowance('messages');
    const byUrl = { type: 'image', source: { type: 'url', url: 'https://example.com/a-rather-long/path/to/the/photo.png' } };
    const inline = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(1_000_000) } };
    const pdf = { type: 'document', source: { type: 'url', url: 'https://example.com/report.pdf' }, title: 'ignored' };
    const question = { type: 'text', text: 'What do these show?' };
    expect(estimateJsonTokens([byUrl], media)).to.equal(1_600);
    expect(estimateJsonTokens([inline], media)).to.equal(1_600);
    expect(estimateJsonTokens([pdf], media)).to.equal(15_000);
    expect(estimateJsonTokens([byUrl, inline, pdf, question], media)).to.equal(1_600 + 1_600 + 15_000 + text([question]));
    // A text document is text the request carries: counted as text.
    const plain = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'abcd'.repeat(100) } };
    expect(estimateJsonTokens([plain], media)).to.equal(
      text([{ type: 'document', source: { type: 'text', media_type: 'text/plain', text: 'abcd'.repeat(100) } }]),
    );
    // Nested in a tool result, as Claude Code sends screenshots.
    expect(estimateJsonTokens([{ type: 'tool_result', tool_use_id: 't', content: [byUrl] }], media)).to.equal(
      1_600 + text([{ type: 'tool_result', tool_use_id: 't', content: [] }]),
    );
  });

  it('holds chat image, audio and file parts, and responses image and file items, by their kinds', () => {
    const chat = mediaAllowance('chat');
    expect(estimateJsonTokens([{ type: 'image_url', image_url: { url: 'https://example.com/x.png', detail: 'high' } }], chat)).to.equal(1_600);
    expect(estimateJsonTokens([{ type: 'input_audio', input_audio: { data: 'B'.repeat(500_000), format: 'wav' } }], chat)).to.equal(3_000);
    expect(estimateJsonTokens([{ type: 'file', file: { file_data: 'data:application/pdf;base64,AAAA', filename: 'a.pdf' } }], chat)).to.equal(15_000);
    const responses = mediaAllowance('responses');
    expect(estimateJsonTokens([{ type: 'input_image', image_url: 'https://example.com/x.png' }], responses)).to.equal(1_600);
    expect(estimateJsonTokens([{ type: 'input_file', file_url: 'https://example.com/r.pdf' }], responses)).to.equal(15_000);
    // Another protocol's block types are not media there (a chat `image` object is just JSON).
    expect(estimateJsonTokens([{ type: 'image', url: 'x' }], chat)).to.equal(text([{ type: 'image', url: 'x' }]));
  });

  it('holds Gemini inlineData and fileData parts by their MIME type, however long their base64 or URI', () => {
    const gemini = mediaAllowance('gemini');
    const parts = (...p: unknown[]) => [{ role: 'user', parts: p }];
    const question = { text: 'What do these show?' };
    expect(estimateJsonTokens(parts({ fileData: { mimeType: 'image/png', fileUri: 'https://example.com/a/very/long/path/photo.png' } }), gemini)).to.equal(
      estimateJsonTokens(parts({ fileData: null }), gemini) + 1_600,
    );
    expect(estimateJsonTokens(parts({ inlineData: { mimeType: 'application/pdf', data: 'A'.repeat(1_000_000) } }), gemini)).to.equal(
      estimateJsonTokens(parts({ inlineData: null }), gemini) + 15_000,
    );
    expect(estimateJsonTokens(parts({ inline_data: { mime_type: 'audio/wav', data: 'B'.repeat(10_000) } }), gemini)).to.equal(
      estimateJsonTokens(parts({ inline_data: null }), gemini) + 3_000,
    );
    expect(estimateJsonTokens(parts({ fileData: { mimeType: 'video/mp4', fileUri: 'gs://bucket/clip.mp4' } }, question), gemini)).to.equal(
      estimateJsonTokens(parts({ fileData: null }, question), gemini) + 15_000,
    );
    // Not media for the other protocols: an `inlineData` key is JSON there.
    expect(estimateJsonTokens([{ inlineData: { mimeType: 'image/png', fileUri: 'x' } }], mediaAllowance('chat'))).to.equal(
      text([{ inlineData: { mimeType: 'image/png', fileUri: 'x' } }]),
    );
  });

  it("takes a model's catalogue figures over the protocol's defaults", () => {
    const media = mediaAllowance('messages', { image: 2_500, document: 40_000 });
    expect(media.tokens).to.deep.equal({ image: 2_500, document: 40_000, file: 15_000, audio: 3_000 });
    expect(
      estimateJsonTokens(
        [
          { type: 'image', source: { type: 'url', url: 'u' } },
          { type: 'document', source: { type: 'file', file_id: 'f' } },
        ],
        media,
      ),
    ).to.equal(42_500);
    expect(DEFAULT_MEDIA_TOKENS).to.deep.equal({ image: 1_600, document: 15_000, file: 15_000, audio: 3_000 });
  });
});
