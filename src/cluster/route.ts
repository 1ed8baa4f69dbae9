import type { ApiSpec } from '../protocol/api.js'
import { API_ROUTES, type RouteKind } from '../protocol/routes.js'
import { WafkaError } from '../errors.js'

export type CoordinatorType = 'group' | 'transaction'

/**
 * Where a request goes. The cluster resolves it to a broker for each attempt
 * (so a retry after "not the leader" or "not the coordinator" goes where fresh
 * metadata or a fresh FindCoordinator says), and forgets what a failure says
 * is stale about it.
 */
export type Route =
  | { readonly kind: 'any' }
  | { readonly kind: 'node'; readonly nodeId: number }
  | { readonly kind: 'leader'; readonly topic: string; readonly partition: number }
  | { readonly kind: 'controller' }
  | { readonly kind: 'group'; readonly groupId: string }
  | { readonly kind: 'transaction'; readonly transactionalId: string }

const ANY: Route = { kind: 'any' }
const CONTROLLER: Route = { kind: 'controller' }

export const Routes = {
  /** Any broker: an open connection if there is one. */
  any: (): Route => ANY,
  /** One broker by node id (broker configs, ListGroups per broker). */
  node: (nodeId: number): Route => ({ kind: 'node', nodeId }),
  /** The partition's leader, from cached metadata. */
  leader: (topic: string, partition: number): Route => ({ kind: 'leader', topic, partition }),
  /** The controller, or any broker when the cluster names none. */
  controller: (): Route => CONTROLLER,
  /** The group's coordinator (FindCoordinator, cached). */
  group: (groupId: string): Route => ({ kind: 'group', groupId }),
  /** The transactional id's coordinator (FindCoordinator, cached). */
  transaction: (transactionalId: string): Route => ({ kind: 'transaction', transactionalId }),
}

/** The route of an API whose default destination needs no key (any broker, the controller). */
export function defaultRoute(api: ApiSpec): Route {
  const kind: RouteKind | undefined = API_ROUTES[api.name]
  if (kind === 'any') return ANY
  if (kind === 'controller') return CONTROLLER
  throw new WafkaError(
    `${api.name} goes to ${kind ? `a ${kind}` : 'an unknown destination'}: give its route (Routes.${kind ?? 'node'}(...))`,
  )
}

/** The coordinator a route names, if it names one. */
export function coordinatorOf(route: Route): { type: CoordinatorType; key: string } | undefined {
  if (route.kind === 'group') return { type: 'group', key: route.groupId }
  if (route.kind === 'transaction') return { type: 'transaction', key: route.transactionalId }
  return undefined
}

export function describeRoute(route: Route): string {
  switch (route.kind) {
    case 'any':
      return 'any broker'
    case 'node':
      return `broker ${route.nodeId}`
    case 'leader':
      return `the leader of ${route.topic}-${route.partition}`
    case 'controller':
      return 'the controller'
    case 'group':
      return `the coordinator of group ${route.groupId}`
    case 'transaction':
      return `the coordinator of transactionalId ${route.transactionalId}`
  }
}
