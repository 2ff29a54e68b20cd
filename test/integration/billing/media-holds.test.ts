import { expect } from 'chai';
import type { MediaTokensEntry } from '../../../src/catalogue/types.ts';
import { usingPostgres } from '../../helpers/db.ts';
import { changeCatalogue, sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

// Issue 33, item 2: media a provider bills by its content (an image's pixels, a PDF's pages) is
// held at a per-block allowance (the protocol's default, or the model's catalogue `media_tokens`),
// never at the characters of its URL.
describe(`media blocks are held at their allowance (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;

  before(async () => {
    gateway = await startTestGateway({ cataloguePath: sampleCatalogueWith() });
    const customer = await gateway.customerWithKey();
    key = customer.key;
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '10.00', reference: 'fund' });
  });
  after(async () => gateway?.close());

  /** What the request held, from its receipt. */
  const held = async (pathname: string, body: unknown): Promise<bigint> => {
    const response = await fetch(gateway.url + pathname, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).to.equal(200);
    const requestId = response.headers.get('request-id')!;
    await gateway.settled();
    await gateway.requestLog(requestId);
    const receipt = (await (await fetch(`${gateway.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
    return BigInt(receipt.hold.amount.replace('.', ''));
  };
  const question = { type: 'text', text: 'What is in it?' };
  const message = (content: unknown[]) => ({ model: 'sandbox/claude-haiku', max_tokens: 20, messages: [{ role: 'user', content }] });
  const image = (url: string) => ({ type: 'image', source: { type: 'url', url } });

  it('holds an Anthropic image at 1,600 tokens and a PDF at 15,000, however long their URLs', async () => {
    const plain = await held('/v1/messages', message([question]));
    // Haiku's dearest input rate (cache writes, 1.25 per million): 1,600 tokens hold 0.002000.
    expect((await held('/v1/messages', message([image('https://example.com/a.png'), question]))) - plain).to.equal(2_000n);
    expect((await held('/v1/messages', message([image(`https://example.com/${'long-path/'.repeat(400)}a.png`), question]))) - plain).to.equal(2_000n);
    const pdf = { type: 'document', source: { type: 'url', url: 'https://example.com/report.pdf' } };
    expect((await held('/v1/messages', message([pdf, question]))) - plain).to.equal(18_750n);
  });

  it("holds a chat image part at 1,600 tokens, and a model's catalogue media_tokens over the default", async () => {
    const chat = (content: unknown[]) => ({ model: 'sandbox/chat-model', max_tokens: 20, messages: [{ role: 'user', content }] });
    const picture = { type: 'image_url', image_url: { url: 'https://example.com/dog.jpg' } };
    // The chat model's input rate, 0.50 per million: 1,600 tokens hold 0.000800.
    expect((await held('/v1/chat/completions', chat([picture, question]))) - (await held('/v1/chat/completions', chat([question])))).to.equal(800n);

    const reloaded = await gateway.rewriteCatalogue((text) => changeCatalogue(text, { model: { 'sandbox/claude-haiku': { media_tokens: { image: 4000 } } } }));
    expect(reloaded.body.status).to.equal('reloaded');
    const plain = await held('/v1/messages', message([question]));
    expect((await held('/v1/messages', message([image('https://example.com/a.png'), question]))) - plain).to.equal(5_000n);
  });

  it('refuses media_tokens on a video model, and an unknown kind', async () => {
    const video = await gateway.rewriteCatalogue((text) => changeCatalogue(text, { model: { 'sandbox/wan2.7-r2v': { media_tokens: { image: 1 } } } }));
    expect(video.status).to.equal(422);
    const kind = await gateway.rewriteCatalogue((text) =>
      changeCatalogue(text, {
        model: {
          'sandbox/wan2.7-r2v': (m) => void delete m.media_tokens,
          'sandbox/claude-haiku': { media_tokens: { video: 4000 } as MediaTokensEntry },
        },
      }),
    );
    expect(kind.status).to.equal(422);
  });
});
