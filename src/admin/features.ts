import type { ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { oneOf } from '../config/option.js'
import { ConfigError } from '../errors.js'
import { ApiVersions, UpdateFeatures } from '../protocol/messages/index.js'
import { check, requireVersion } from './checks.js'

/** Cluster features (KIP-584): what a broker supports and the cluster finalized (describeFeatures), and changing a level (updateFeatures). */

/** UpdateFeatures' upgrade types (Java's FeatureUpdate.UpgradeType). */
export const FeatureUpgradeTypes = { UPGRADE: 1, SAFE_DOWNGRADE: 2, UNSAFE_DOWNGRADE: 3 } as const
export type FeatureUpgradeType = keyof typeof FeatureUpgradeTypes
const UPGRADE_TYPES = Object.keys(FeatureUpgradeTypes) as FeatureUpgradeType[]

export interface FeatureUpdate {
  /** The level to finalize (0: none, the feature disabled). */
  maxVersionLevel: number
  /** Default 'UPGRADE'; a lower level needs 'SAFE_DOWNGRADE' or 'UNSAFE_DOWNGRADE'. */
  upgradeType?: FeatureUpgradeType
}

/**
 * One broker's ApiVersions answer, as Java's Admin#describeFeatures reads
 * it: the features it supports (version ranges) and those the cluster
 * finalized (levels), at the finalized features' epoch (null when the
 * broker gives none).
 */
export async function describeFeatures(cluster: ClusterClient) {
  const { res } = await cluster.request(
    ApiVersions,
    (v) => ({ ...(v >= 3 ? { clientSoftwareName: 'wafka', clientSoftwareVersion: '1' } : {}) }),
    Routes.any(),
    { check: (r, from) => check(r.errorCode, 'ApiVersions', 'features', null, from) },
  )
  return {
    supported: Object.fromEntries(res.supportedFeatures.map((f) => [f.name, { minVersion: f.minVersion, maxVersion: f.maxVersion }])),
    finalized: Object.fromEntries(
      res.finalizedFeatures.map((f) => [f.name, { minVersionLevel: f.minVersionLevel, maxVersionLevel: f.maxVersionLevel }]),
    ),
    epoch: res.finalizedFeaturesEpoch >= 0n ? res.finalizedFeaturesEpoch : null,
  }
}

/**
 * Finalizes feature levels (UpdateFeatures; Java's Admin#updateFeatures):
 * the controller takes all or none, and a refusal is thrown with its
 * message (INVALID_UPDATE_VERSION naming the feature that failed).
 */
export async function updateFeatures(
  cluster: ClusterClient,
  options: { features: Record<string, FeatureUpdate>; validateOnly?: boolean; timeout?: number },
): Promise<void> {
  const updates = Object.entries(options.features)
  // As Java's admin: nothing to update is a mistake, not a request.
  if (updates.length === 0) throw new ConfigError('updateFeatures(): features names no feature to update')
  for (const [name, u] of updates) oneOf(`updateFeatures() ${name} upgradeType`, u.upgradeType, UPGRADE_TYPES, 'UPGRADE')
  const timeoutMs = options.timeout ?? 60_000
  await cluster.request(
    UpdateFeatures,
    (v) => {
      const downgrades = updates.some(([, u]) => (u.upgradeType ?? 'UPGRADE') !== 'UPGRADE')
      if (downgrades) requireVersion(v, 1, 'a feature downgrade')
      if (options.validateOnly) requireVersion(v, 1, 'validateOnly')
      return {
        timeoutMs,
        featureUpdates: updates.map(([feature, u]) => ({
          feature,
          maxVersionLevel: u.maxVersionLevel,
          ...(v >= 1 ? { upgradeType: FeatureUpgradeTypes[u.upgradeType ?? 'UPGRADE'] } : {}),
        })),
        ...(v >= 1 ? { validateOnly: options.validateOnly ?? false } : {}),
      }
    },
    Routes.any(),
    {
      retryMs: options.timeout,
      check: (r, from) => {
        check(r.errorCode, 'UpdateFeatures', updates.map(([name]) => name).join(', '), r.errorMessage, from)
        for (const f of r.results) check(f.errorCode, 'UpdateFeatures', f.feature, f.errorMessage, from)
      },
    },
  )
}
