import { fileURLToPath } from 'node:url'
// The generator's reading of the spec (version ranges, defaults, structs):
// tests build their values and expectations from it, independently of the
// code it emitted.
import { contains, loadMessage } from '../../../src/protocol/generate/spec.mjs'

export const MESSAGES_DIR = fileURLToPath(new URL('../../../src/protocol/spec/messages', import.meta.url))

export interface Range {
  lo: number
  hi: number
}

export interface Field {
  name: string
  camel: string
  where: string
  type: string
  array: boolean
  struct: Struct | null
  versions: Range
  nullable: Range | null
  tag: number | null
  ignorable: boolean
  default: unknown
}

export interface Struct {
  jsonName: string
  tsName: string
  fields: Field[]
}

export interface Message {
  name: string
  apiKey: number
  valid: Range
  flexibleFrom: number
  root: Struct
}

const cache = new Map<string, Message>()

export function message(fileName: string): Message {
  let m = cache.get(fileName)
  if (m === undefined) cache.set(fileName, (m = loadMessage(MESSAGES_DIR, fileName) as unknown as Message))
  return m
}

export const inVersions = (range: Range | null, version: number): boolean => contains(range, version)
