/**
 * The support agents' settings (README "Settings"), read from the server's environment when the module is
 * made. The model provider is the platform's optional one (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, see
 * shell/llm/provider.ts): unset keeps every answer extractive.
 */
import type { SettingsEnv } from '../config.ts';
import { chatProvider, type ChatProvider } from '../llm/provider.ts';

export interface SupportSettings {
  /** Null when no provider is configured. */
  readonly provider: ChatProvider | null;
}

export function supportSettings(env: SettingsEnv): SupportSettings {
  return { provider: chatProvider(env) };
}
