// The benchmark's upstream, in a process of its own so that it never shares an event loop with a
// gateway under test: the simulated Anthropic Messages API and OpenAI Chat Completions API (delays
// chosen per request by prompt directives, e.g. "[[sim first_byte_ms=20]]" or
// "[[sim deltas=64 gap_ms=20]]"), both without request history, and the simulated Ark video API.
// Prints one JSON line with the base URLs (chat's ends with /v1), then serves until killed.
import { startAnthropicSimulator } from '../../src/sandbox/anthropic/server.ts';
import { startArkSimulator } from '../../src/sandbox/ark/server.ts';
import { startOpenAIChatSimulator } from '../../src/sandbox/openai-chat/server.ts';

const anthropic = await startAnthropicSimulator({ record: false });
const chat = await startOpenAIChatSimulator({ record: false });
const ark = await startArkSimulator();
process.stdout.write(`${JSON.stringify({ anthropic: anthropic.baseUrl, chat: chat.baseUrl, ark: ark.baseUrl })}\n`);

const stop = () => void Promise.all([anthropic.close(), chat.close(), ark.close()]).finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
