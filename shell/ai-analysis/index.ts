/**
 * The AI analysis module of the shell: prompt and URL analysis over the asset profiles, with the optional
 * model provider. It keeps no state of the engine: its answers depend only on the request, the fetched page
 * and the profiles, so it needs no durable view.
 */
import type { ShellModule } from '../shell-module.ts';
import { loadOracleAssets } from '../../engine/runtime/oracle/assets.ts';
import { chatProvider } from '../llm/provider.ts';
import { AiAnalysis } from './analyzer.ts';
import { loadAssetProfiles } from './profiles.ts';
import { aiAnalysisRoutes } from './routes.ts';
import { aiAnalysisSettings } from './settings.ts';

export const aiAnalysisModule: ShellModule = {
  name: 'ai-analysis',
  create(context) {
    const settings = aiAnalysisSettings(context.config.env);
    const profiles = loadAssetProfiles(
      loadOracleAssets().map((asset) => asset.symbol),
      settings.profilesPath,
    );
    const service = new AiAnalysis({
      profiles,
      provider: chatProvider(context.config.env),
      fetchTimeoutMs: settings.fetchTimeoutMs,
      pageBytesMax: settings.pageBytesMax,
      concurrentMax: settings.concurrentMax,
      allowPrivate: context.config.outboundAllowPrivate,
    });
    return { routes: aiAnalysisRoutes(service) };
  },
};
