// What one media block is held at, per protocol: the block types that carry media a provider bills
// by its content (pixels, pages, seconds), and the input tokens each kind is held at by default. A
// model's catalogue entry may set its own (`media_tokens`). The figures (docs/money.md):
//   image     1,600   Anthropic bills an image at about width x height / 750 tokens and scales
//                     larger ones down to about 1.15 megapixels (~1,600 tokens); OpenAI's high
//                     detail (85 + 170 per 512-pixel tile of the scaled image) stays below that
//   document 15,000   an Anthropic PDF: 1,500-3,000 tokens of text a page plus each page as an
//                     image; five dense pages
//   file     15,000   an OpenAI file part (a PDF's text and page images): as a document
//   audio     3,000   OpenAI input audio: about two minutes (1,000-1,500 audio tokens a minute)
// Gemini parts (`inlineData`, `fileData`) carry no block type: their MIME type picks the kind (an
// image, audio, a PDF as a document, anything else, a video included, as a file).
// A hold is an upper bound only: whatever the provider reports is charged in full (the hold, then
// the balance, then debt), so an allowance below the real figure costs no money, only a closer hold.
import type { MediaTokensEntry, ModelGroup } from '../../catalogue/types.ts';
import type { MediaAllowance, MediaTokens } from './estimate.ts';

export const DEFAULT_MEDIA_TOKENS: MediaTokens = { image: 1_600, document: 15_000, file: 15_000, audio: 3_000 };

/** The block types of each protocol that carry media, and the kind that prices each. */
const MEDIA_BLOCKS: Record<'messages' | 'chat' | 'responses', MediaAllowance['blocks']> = {
  // Anthropic Messages: image and document blocks (a text document is counted as text).
  messages: { image: 'image', document: 'document' },
  // OpenAI Chat Completions content parts.
  chat: { image_url: 'image', input_audio: 'audio', file: 'file' },
  // OpenAI Responses input content.
  responses: { input_image: 'image', input_file: 'file', input_audio: 'audio' },
};

/** Gemini parts carry media under these keys, typed by their MIME type rather than a block type. */
const GEMINI_MEDIA_KEYS: ReadonlySet<string> = new Set(['inlineData', 'inline_data', 'fileData', 'file_data']);

/** How a model's media blocks are held: its protocol's block types, at its catalogue figures or the defaults. */
export function mediaAllowance(group: ModelGroup, overrides?: MediaTokensEntry): MediaAllowance {
  const tokens = { ...DEFAULT_MEDIA_TOKENS, ...overrides };
  if (group === 'gemini') return { blocks: {}, byMime: GEMINI_MEDIA_KEYS, tokens };
  const blocks = group === 'messages' || group === 'chat' || group === 'responses' ? MEDIA_BLOCKS[group] : {};
  return { blocks, tokens };
}
