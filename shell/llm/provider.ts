/**
 * The optional model provider of the AI features (support agents, prompt and URL analysis, due diligence,
 * CEO scoring): an OpenAI-compatible `POST {base}/chat/completions`, reached only through the guarded
 * outbound fetch. Every AI feature works without it, deterministically; with it, a feature may let the
 * model phrase or refine its answer, and says which answered. Unset settings mean no provider.
 *
 * Settings: LLM_BASE_URL (e.g. https://api.example.com/v1), LLM_API_KEY, LLM_MODEL (all three, or none),
 * LLM_TIMEOUT_MS (deadline of one call, default 20 000), LLM_MAX_TOKENS (answer cap per call, default 600).
 * A call's prompt is capped at `promptCharsMax` characters, so the cost of one call is bounded.
 */
import { integer, type SettingsEnv } from '../config.ts';
import { OutboundError, outboundFetchJson } from '../../engine/runtime/outbound/fetch.ts';

/** Characters of all messages of one call at most. */
export const promptCharsMax = 24_000;
/** Bytes of a provider's answer read at most. */
const answerBytesMax = 256 * 1024;

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface ProviderSettings {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly model: string;
  readonly timeoutMs: number;
  readonly maxTokens: number;
  /** OUTBOUND_ALLOW_PRIVATE: for tests against a local fixture provider only. */
  readonly allowPrivate: boolean;
}

/** Why a call gave no answer: the feature then answers without the model. */
export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** The provider settings, or null when LLM_BASE_URL, LLM_API_KEY and LLM_MODEL are unset; half-set is an error. */
export function providerSettings(env: SettingsEnv): ProviderSettings | null {
  const baseUrl = env['LLM_BASE_URL'] ?? '';
  const apiKey = env['LLM_API_KEY'] ?? '';
  const model = env['LLM_MODEL'] ?? '';
  const set = [baseUrl, apiKey, model].filter((value) => value !== '').length;
  if (set === 0) return null;
  if (set !== 3) throw new Error('LLM_BASE_URL, LLM_API_KEY and LLM_MODEL are set together or not at all');
  if (!/^https?:\/\//.test(baseUrl)) throw new Error('LLM_BASE_URL must be an http(s) URL');
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey,
    model,
    timeoutMs: integer(env, 'LLM_TIMEOUT_MS', 20_000, 100, 60_000),
    maxTokens: integer(env, 'LLM_MAX_TOKENS', 600, 16, 4_000),
    allowPrivate: env['OUTBOUND_ALLOW_PRIVATE'] === '1',
  };
}

export class ChatProvider {
  constructor(readonly settings: ProviderSettings) {}

  /** The model's answer text; ProviderError when the call fails, times out or answers nothing usable. */
  async complete(messages: readonly ChatMessage[], signal?: AbortSignal): Promise<string> {
    const chars = messages.reduce((sum, message) => sum + message.content.length, 0);
    if (chars > promptCharsMax) throw new ProviderError(`prompt of ${chars} characters over ${promptCharsMax}`);
    const { baseUrl, apiKey, model, timeoutMs, maxTokens, allowPrivate } = this.settings;
    let answer: unknown;
    try {
      answer = await outboundFetchJson(`${baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ model, messages, max_tokens: maxTokens, temperature: 0 }),
        timeoutMs,
        bytesMax: answerBytesMax,
        allowPrivate,
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      if (error instanceof OutboundError || error instanceof RangeError) throw new ProviderError(`model provider: ${error.message}`);
      throw error;
    }
    const content = (answer as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]?.message?.content;
    if (typeof content !== 'string' || content.trim() === '') throw new ProviderError('model provider: no answer text');
    return content.trim();
  }
}

/** The configured provider, or null. */
export function chatProvider(env: SettingsEnv): ChatProvider | null {
  const settings = providerSettings(env);
  return settings === null ? null : new ChatProvider(settings);
}
