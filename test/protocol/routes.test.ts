import { expect, it } from 'vitest'
import { defaultRoute, Routes } from '../../src/cluster/route.js'
import * as messages from '../../src/protocol/messages/index.js'
import type { ApiSpec } from '../../src/protocol/api.js'
import { API_ROUTES } from '../../src/protocol/routes.js'

const apis = Object.values(messages).filter((x): x is ApiSpec => typeof x === 'object' && x !== null && 'apiKey' in x)

it('every generated API has a route, and the table names no API that does not exist', () => {
  expect(apis.length).toBeGreaterThan(30)
  expect(apis.filter((api) => !(api.name in API_ROUTES)).map((api) => api.name)).toEqual([])
  expect(Object.keys(API_ROUTES).filter((name) => !apis.some((api) => api.name === name))).toEqual([])
})

it('an API whose route needs a key (leader, coordinator) has no default: the caller must say where', () => {
  expect(defaultRoute(messages.CreateTopics)).toEqual(Routes.controller())
  expect(defaultRoute(messages.DescribeAcls)).toEqual(Routes.any())
  expect(() => defaultRoute(messages.JoinGroup)).toThrow(/JoinGroup goes to a group: give its route/)
  expect(() => defaultRoute(messages.Produce)).toThrow(/Produce goes to a leader/)
})
