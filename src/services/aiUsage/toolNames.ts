import { APP_PROVIDER_IDS, APP_PROVIDERS } from '../apps/providers';
import { AI_TOOLS } from '../telemetry/aiTools';

/**
 * Every AI coding tool whose use the figures count, by the name the usage rollups' `tool` column holds: those
 * telemetry reports (OTLP, telemetry/aiTools.ts) and those whose vendor's API is read (apps of category `ai`,
 * docs/ai-vendors.md). Claude Code is both, under one name.
 */
export const AI_TOOL_NAMES: readonly string[] = [...new Set<string>([...AI_TOOLS, ...APP_PROVIDER_IDS.filter((p) => APP_PROVIDERS[p].category === 'ai')])];
