/**
 * The support agents' settings (README "Settings"), read from the server's environment when the module is
 * made. The model provider is optional: SUPPORT_LLM_BASE_URL empty (the default) keeps every answer
 * extractive. When it is set, SUPPORT_LLM_MODEL must be too; SUPPORT_LLM_API_KEY is sent as a bearer token
 * when not empty; SUPPORT_LLM_TIMEOUT_MS bounds each call. Outbound calls obey OUTBOUND_ALLOW_PRIVATE like
 * every other outbound request (tests only).
 */
import { integer, type SettingsEnv } from '../config.ts';

export interface ProviderSettings {
  /** The OpenAI-compatible API's base, e.g. `https://llm.example/v1`; `/chat/completions` is appended. */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly model: string;
  readonly timeoutMs: number;
  readonly allowPrivate: boolean;
}

export interface SupportSettings {
  /** Null when no provider is configured. */
  readonly provider: ProviderSettings | null;
}

/** Longest model name accepted. */
export const modelNameCharsMax = 200;

export function supportSettings(env: SettingsEnv, allowPrivate: boolean): SupportSettings {
  const baseUrl = (env['SUPPORT_LLM_BASE_URL'] ?? '').trim();
  const timeoutMs = integer(env, 'SUPPORT_LLM_TIMEOUT_MS', 10_000, 100, 60_000);
  if (baseUrl === '') return { provider: null };
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error('SUPPORT_LLM_BASE_URL must be an absolute http: or https: URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('SUPPORT_LLM_BASE_URL must be an absolute http: or https: URL');
  const model = (env['SUPPORT_LLM_MODEL'] ?? '').trim();
  if (model === '' || model.length > modelNameCharsMax) throw new Error(`SUPPORT_LLM_MODEL must be set (1 to ${modelNameCharsMax} characters) when SUPPORT_LLM_BASE_URL is`);
  return { provider: { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: env['SUPPORT_LLM_API_KEY'] ?? '', model, timeoutMs, allowPrivate } };
}
