/**
 * The discovery documents' setting: PUBLIC_BASE_URL, the origin clients reach the service at (behind a
 * proxy, say `https://api.example.com`). Unset, the OpenAPI document's server is `/` (relative: the origin
 * the document was fetched from) and the documents that need an absolute URL (agent card, AsyncAPI,
 * llms.txt) use `http://` and the request's Host header.
 */
import type { SettingsEnv } from '../config.ts';

export interface DiscoverySettings {
  /** The public origin without a trailing slash, or null. */
  readonly publicBaseUrl: string | null;
}

export function discoverySettings(env: SettingsEnv): DiscoverySettings {
  const text = (env['PUBLIC_BASE_URL'] ?? '').trim();
  if (text === '') return { publicBaseUrl: null };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`PUBLIC_BASE_URL: not a URL: ${text}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new Error(`PUBLIC_BASE_URL: must be an http(s) origin, optionally with a path, and nothing else: ${text}`);
  }
  return { publicBaseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

/** A Host header as a client may send it: a name or an IPv4/IPv6 address, and an optional port. */
const hostPattern = /^(?:[a-z0-9.-]{1,253}|\[[0-9a-f:.]{2,45}\])(?::[0-9]{1,5})?$/i;

/** The absolute base for a request: the setting, else http:// and the request's Host (localhost when unusable). */
export function baseUrlOf(settings: DiscoverySettings, host: string): string {
  if (settings.publicBaseUrl !== null) return settings.publicBaseUrl;
  return `http://${hostPattern.test(host) ? host.toLowerCase() : 'localhost'}`;
}
