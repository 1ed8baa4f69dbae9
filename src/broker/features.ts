import { ErrorCodes } from '../protocol/error-codes.js'
import type { Controller } from './controller.js'

/**
 * The features the embedded broker supports (Kafka's finalized features,
 * KIP-584): transaction.version alone, 0-2 (KIP-890's second transaction
 * protocol at 2). ApiVersions advertises them; UpdateFeatures changes their
 * finalized level, kept in the metadata log.
 */
export const SUPPORTED_FEATURES: ReadonlyMap<string, { min: number; max: number }> = new Map([['transaction.version', { min: 0, max: 2 }]])

/** UpdateFeatures' upgrade types (Kafka's FeatureUpdate.UpgradeType). */
export const UpgradeTypes = { UPGRADE: 1, SAFE_DOWNGRADE: 2, UNSAFE_DOWNGRADE: 3 } as const

/** A feature's finalized level (0: not finalized). */
export function featureLevel(controller: Controller, name: string): number {
  return controller.features.get(name) ?? 0
}

/** The finalized features with a level above 0, as ApiVersions lists them. */
export function finalizedFeatures(controller: Controller): { name: string; level: number }[] {
  return [...SUPPORTED_FEATURES.keys()].map((name) => ({ name, level: featureLevel(controller, name) })).filter((f) => f.level > 0)
}

/**
 * At a cluster's start, the features its metadata log has never finalized
 * take the levels the options give (Kafka's bootstrap records, written
 * when the storage is formatted); a log that has them keeps its own.
 */
export function bootstrapFeatures(controller: Controller, levels: Readonly<Record<string, number>>): void {
  controller.atomically(() => {
    for (const [name, level] of Object.entries(levels))
      if (!controller.features.has(name)) controller.append({ type: 'feature', name, level, epoch: controller.featuresEpoch + 1 })
  })
}

export interface FeatureUpdate {
  feature: string
  maxVersionLevel: number
  upgradeType: number
}

/**
 * Why Kafka's controller refuses one update (FeatureControlManager's
 * checks, in its order, with its message), or null when it takes it.
 */
function refusal(controller: Controller, controllerId: number, u: FeatureUpdate): string | null {
  const invalid = (why: string) => `Invalid update version ${u.maxVersionLevel} for feature ${u.feature}. ${why}`
  if (!Object.values(UpgradeTypes).includes(u.upgradeType as never))
    return invalid('The controller does not support the given upgrade type.')
  if (u.maxVersionLevel < 0) return invalid('A feature version cannot be less than 0.')
  const range = SUPPORTED_FEATURES.get(u.feature)
  if (!range) return invalid(`Local controller ${controllerId} does not support this feature.`)
  if (u.maxVersionLevel < range.min || u.maxVersionLevel > range.max)
    return invalid(`Local controller ${controllerId} only supports versions ${range.min}-${range.max}`)
  const current = featureLevel(controller, u.feature)
  if (u.maxVersionLevel < current && u.upgradeType === UpgradeTypes.UPGRADE)
    return invalid("Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.")
  if (u.maxVersionLevel > current && u.upgradeType !== UpgradeTypes.UPGRADE) return invalid("Can't downgrade to a newer version.")
  return null
}

/**
 * UpdateFeatures as Kafka's controller answers it: every update is checked
 * first, and one refused refuses them all (INVALID_UPDATE_VERSION, with
 * Kafka's message naming it); else each is written as a feature record
 * (even one at the level it has, as Kafka writes it), all in one atomic
 * change, unless `validateOnly`.
 */
export function updateFeatures(
  controller: Controller,
  controllerId: number,
  updates: readonly FeatureUpdate[],
  validateOnly: boolean,
): { errorCode: number; errorMessage: string } | null {
  for (const u of updates) {
    const why = refusal(controller, controllerId, u)
    if (why !== null)
      return {
        errorCode: ErrorCodes.INVALID_UPDATE_VERSION,
        errorMessage: `The update failed for all features since the following feature had an error: ${why}`,
      }
  }
  if (validateOnly) return null
  // A feature named twice: the last update wins (Kafka reads them into a map).
  const levels = new Map(updates.map((u) => [u.feature, u.maxVersionLevel]))
  controller.atomically(() => {
    for (const [name, level] of levels) controller.append({ type: 'feature', name, level, epoch: controller.featuresEpoch + 1 })
  })
  return null
}
