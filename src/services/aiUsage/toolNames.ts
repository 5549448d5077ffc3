import type { ProviderCatalog } from '../apps/catalog';
import { AI_TOOLS } from '../telemetry/aiTools';

/**
 * Every AI coding tool whose use the figures count, by the name the usage rollups' `tool` column holds: those
 * telemetry reports (OTLP, telemetry/aiTools.ts) and those whose vendor's API is read (the catalog's AI vendors,
 * docs/ai-vendors.md). Claude Code is both, under one name.
 */
export function aiToolNames(catalog: ProviderCatalog): string[] {
  const vendors = catalog.providers.filter((p) => catalog.vendor(p.id) !== undefined).map((p) => p.id);
  return [...new Set([...AI_TOOLS, ...vendors])];
}
