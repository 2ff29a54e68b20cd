// The script of a web app's page, bundled for the browser by test/e2e/browser.test.ts: the
// official SDKs, as a page uses them (dangerouslyAllowBrowser), against the gateway on another
// origin. It reports what the page could see, or the error the SDK threw.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

export interface PageReport {
  message?: { text: string; requestId: string | null | undefined };
  streamed?: { text: string; outputTokens: number; requestId: string | null | undefined };
  models?: string[];
  chat?: { text: string; totalTokens: number | undefined; requestId: string | null | undefined };
  error?: { name: string; message: string };
}

async function run(baseURL: string, apiKey: string, only: 'messages' | 'all'): Promise<PageReport> {
  const report: PageReport = {};
  try {
    const anthropic = new Anthropic({ apiKey, baseURL, dangerouslyAllowBrowser: true, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'sandbox/claude-haiku',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello from a page' }],
    });
    report.message = { text: message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''), requestId: message._request_id };
    if (only === 'messages') return report;

    const stream = anthropic.messages.stream({ model: 'sandbox/claude-haiku', max_tokens: 64, messages: [{ role: 'user', content: 'Stream to a page' }] });
    let text = '';
    stream.on('text', (delta) => (text += delta));
    const final = await stream.finalMessage();
    report.streamed = { text, outputTokens: final.usage.output_tokens, requestId: stream.request_id };

    const openai = new OpenAI({ apiKey, baseURL: `${baseURL}/v1`, dangerouslyAllowBrowser: true, maxRetries: 0 });
    report.models = (await openai.models.list()).data.map((model) => model.id);
    const chat = await openai.chat.completions
      .create({ model: 'sandbox/chat-model', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Chat from a page' }] })
      .withResponse();
    let chatText = '';
    let totalTokens: number | undefined;
    for await (const chunk of chat.data) {
      chatText += chunk.choices[0]?.delta?.content ?? '';
      totalTokens = chunk.usage?.total_tokens ?? totalTokens;
    }
    report.chat = { text: chatText, totalTokens, requestId: chat.request_id };
  } catch (error) {
    report.error = { name: (error as Error).constructor.name, message: (error as Error).message };
  }
  return report;
}

(globalThis as unknown as { runSdkCalls: typeof run }).runSdkCalls = run;
