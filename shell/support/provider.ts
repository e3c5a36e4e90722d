/**
 * The optional model provider: an OpenAI-compatible `POST {base}/chat/completions`, through the guarded
 * outbound request (engine/runtime/outbound/fetch.ts), that rewords the retrieved passages into an answer.
 * The model sees the question and the quoted passages only, and is told to answer from them alone; the
 * citations stay those of the passages. Every size is bounded: the passages sent (`promptCharsMax`), the
 * tokens asked for (`completionTokensMax`), the answer's bytes (`responseBytesMax`) and its length
 * (`modelAnswerCharsMax`); the call has a deadline (SUPPORT_LLM_TIMEOUT_MS). Any failure (refusal,
 * timeout, HTTP error, a malformed or empty answer) is thrown, and the caller answers extractively.
 */
import { outboundFetchJson } from '../../engine/runtime/outbound/fetch.ts';
import type { ProviderSettings } from './settings.ts';

/** Characters of passages sent at most, and of one passage. */
export const promptCharsMax = 8000;
export const promptPassageCharsMax = 2000;
/** Tokens the model may write. */
export const completionTokensMax = 400;
/** Bytes of the provider's answer read at most. */
export const responseBytesMax = 256 * 1024;
/** Characters of the model's answer kept at most. */
export const modelAnswerCharsMax = 2000;

export interface PromptPassage {
  readonly document: string;
  readonly section: string;
  readonly text: string;
}

const instructions =
  'You answer questions about a trading platform. Use only the numbered passages given; if they do not answer the question, say so. ' +
  'Be brief and precise, keep route paths and field names exactly as written, and do not invent facts.';

export class ProviderError extends Error {}

/** The passages as the prompt shows them, numbered, within the prompt's bound. */
export function promptOf(question: string, passages: readonly PromptPassage[]): string {
  const blocks: string[] = [];
  let length = 0;
  for (const [index, passage] of passages.entries()) {
    const block = `[${index + 1}] ${passage.document} (${passage.section})\n${passage.text.slice(0, promptPassageCharsMax)}`;
    if (length + block.length > promptCharsMax) break;
    blocks.push(block);
    length += block.length;
  }
  return `Question: ${question}\n\nPassages:\n\n${blocks.join('\n\n')}`;
}

/** The model's wording of an answer from `passages`; throws on any failure. */
export async function phraseAnswer(settings: ProviderSettings, question: string, passages: readonly PromptPassage[]): Promise<string> {
  const answer = await outboundFetchJson(`${settings.baseUrl}/chat/completions`, {
    method: 'POST',
    timeoutMs: settings.timeoutMs,
    bytesMax: responseBytesMax,
    allowPrivate: settings.allowPrivate,
    headers: { 'content-type': 'application/json', ...(settings.apiKey === '' ? {} : { authorization: `Bearer ${settings.apiKey}` }) },
    body: JSON.stringify({
      model: settings.model,
      messages: [
        { role: 'system', content: instructions },
        { role: 'user', content: promptOf(question, passages) },
      ],
      max_tokens: completionTokensMax,
      temperature: 0,
    }),
  });
  const content = (answer as { choices?: Array<{ message?: { content?: unknown } }> } | null)?.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || content.trim() === '') throw new ProviderError('the provider answered no message content');
  const text = content.trim();
  return text.length <= modelAnswerCharsMax ? text : `${text.slice(0, modelAnswerCharsMax - 1)}…`;
}
