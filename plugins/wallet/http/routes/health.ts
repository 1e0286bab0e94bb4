import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../../../../node/cli/package-root.js';
import { quote } from '../../credentials/upstream.js';
import type { WalletRouter } from '../router.js';

/**
 * `GET /health` and `GET /v1/health` (no auth): `{status, service: "wallet", build: {commit,
 * builtAt}, timestamp, warnings}`. `status` is `ok`, or `degraded` with `warnings` saying what an
 * operator should fix (the composition root's `warnings()`: a sponsor without funds, no price
 * feed, no internal secret…). `build` is what `npm run build` recorded in dist/build-info.json
 * (scripts/write-build-info.mjs); code run from its sources (tsx) has no build, and says so:
 * `{commit: "unknown", builtAt: null}`.
 */

export interface BuildInfo {
  commit: string;
  builtAt: string | null;
}

export const UNKNOWN_BUILD: BuildInfo = Object.freeze({ commit: 'unknown', builtAt: null });

export interface HealthDeps {
  warnings(): Promise<string[]>;
  /** default: readBuildInfo(buildInfoFile()), read once */
  build?: BuildInfo;
  now(): number;
}

/** dist/build-info.json when this module runs from the build (dist/), else null: sources have no build. */
export function buildInfoFile(): string | null {
  try {
    const dist = join(packageRoot(), 'dist') + sep;
    return fileURLToPath(import.meta.url).startsWith(dist) ? join(dist, 'build-info.json') : null;
  } catch {
    return null;
  }
}

/** The recorded build, or UNKNOWN_BUILD when there is no file or it is not one of ours. */
export function readBuildInfo(file: string | null): BuildInfo {
  if (file === null) return UNKNOWN_BUILD;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { commit?: unknown; builtAt?: unknown };
    const commit = typeof parsed.commit === 'string' && /^[\w.-]{1,100}$/.test(parsed.commit) ? parsed.commit : 'unknown';
    const builtAt = typeof parsed.builtAt === 'string' && Number.isFinite(Date.parse(parsed.builtAt)) ? new Date(parsed.builtAt).toISOString() : null;
    return { commit, builtAt };
  } catch {
    return UNKNOWN_BUILD;
  }
}

export function mountHealth(router: WalletRouter, deps: HealthDeps): void {
  const build = { ...(deps.build ?? readBuildInfo(buildInfoFile())) };
  const answer = async () => {
    let warnings: string[];
    try {
      warnings = [...(await deps.warnings())];
    } catch (err) {
      warnings = [`the health checks themselves failed: ${quote(err instanceof Error ? err.message : String(err))}`];
    }
    return { status: warnings.length === 0 ? 'ok' : 'degraded', service: 'wallet', build, timestamp: new Date(deps.now()).toISOString(), warnings };
  };
  router.add('GET', '/health', 'none', answer);
  router.add('GET', '/v1/health', 'none', answer);
}
