// Reads Kafka's message definitions (JSON with // comments) into a model the
// emitters walk: structs with fields, every version range made explicit.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The all-zero UUID (Java's Uuid.toString() form): a uuid field's default. The runtime's is protocol/writer.ts's; this is the generator's. */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA'

/** Removes // comments outside strings, keeping line breaks so JSON errors still point at the right line. */
export function stripComments(text) {
  let out = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      out += c
      if (c === '\\') out += text[++i] ?? ''
      else if (c === '"') inString = false
    } else if (c === '"') {
      inString = true
      out += c
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++
      out += '\n'
    } else {
      out += c
    }
  }
  return out
}

export function readJson(dir, name) {
  const path = join(dir, `${name}.json`)
  try {
    return JSON.parse(stripComments(readFileSync(path, 'utf8')))
  } catch (err) {
    throw new Error(`${path}: ${err.message}`)
  }
}

/** A version range: { lo, hi } inclusive (hi may be Infinity), or null for "none". */
export function parseVersions(text, where) {
  if (text === undefined) return null
  const s = String(text).trim()
  if (s === 'none') return null
  let m
  if ((m = /^(\d+)\+$/.exec(s))) return { lo: Number(m[1]), hi: Infinity }
  if ((m = /^(\d+)-(\d+)$/.exec(s))) return { lo: Number(m[1]), hi: Number(m[2]) }
  if ((m = /^(\d+)$/.exec(s))) return { lo: Number(m[1]), hi: Number(m[1]) }
  throw new Error(`${where}: cannot read version range ${JSON.stringify(text)}`)
}

export function intersect(a, b) {
  if (a === null || b === null) return null
  const lo = Math.max(a.lo, b.lo)
  const hi = Math.min(a.hi, b.hi)
  return lo <= hi ? { lo, hi } : null
}

export function contains(range, version) {
  return range !== null && version >= range.lo && version <= range.hi
}

export function formatVersions(r) {
  if (r === null) return 'none'
  if (r.hi === Infinity) return `${r.lo}+`
  return r.lo === r.hi ? `${r.lo}` : `${r.lo}-${r.hi}`
}

const PRIMITIVES = new Set(['bool', 'int8', 'int16', 'int32', 'int64', 'uint16', 'uint32', 'float64', 'string', 'uuid', 'bytes', 'records'])
const INTEGERS = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-2147483648, 2147483647],
  uint16: [0, 65535],
  uint32: [0, 4294967295],
}

export const camel = (name) => name[0].toLowerCase() + name.slice(1)

/**
 * One message file as a tree of structs.
 *
 * Message: { name, apiKey, kind ('request'|'response'|'header'|'data'), valid, flexibleFrom, root, structs }
 * Struct:  { jsonName, tsName, fields, known (versions in which it can occur), common }
 * Field:   { name, camel, where ('Struct.Field'), type, array, struct, versions, nullable,
 *            tag, taggedVersions, flexible (field-level override, or undefined), ignorable, default, about }
 *  - type: a primitive name, or 'struct' (then `struct` is set); `array` says it is []type.
 *  - default: a JS value: number, bigint, boolean, string, null, or the markers 'empty' (bytes,
 *    arrays) and 'struct' (a struct with every field at its default).
 */
export function loadMessage(dir, fileName) {
  const json = readJson(dir, fileName)
  const valid = parseVersions(json.validVersions, fileName)
  const flexible = parseVersions(json.flexibleVersions ?? 'none', fileName)
  const msg = {
    name: json.name,
    apiKey: json.apiKey,
    kind: json.type,
    valid,
    flexibleFrom: flexible === null ? Infinity : flexible.lo,
    latestVersionUnstable: json.latestVersionUnstable === true,
    root: null,
    structs: [],
  }
  if (flexible !== null && flexible.hi !== Infinity) throw new Error(`${fileName}: flexibleVersions must be open-ended`)

  const commonSpecs = new Map((json.commonStructs ?? []).map((s) => [s.name, s]))
  const built = new Map() // JSON type name -> Struct
  const tsNames = new Set()
  const tsNameFor = (typeName) => {
    // Kafka's struct names are unique within a file. Prefix them with the
    // message name (FetchRequest + FetchTopic) unless they already carry it
    // (OffsetFetchRequestTopic), so request and response can share a TS file.
    const base = typeName.startsWith(msg.name) ? typeName : msg.name + typeName
    if (tsNames.has(base)) throw new Error(`${fileName}: struct name ${base} is used twice`)
    tsNames.add(base)
    return base
  }

  const buildStruct = (jsonName, tsName, fieldSpecs, known, common) => {
    const struct = { jsonName, tsName, fields: [], known, common }
    built.set(jsonName, struct)
    msg.structs.push(struct)
    const tags = new Set()
    for (const spec of fieldSpecs) {
      const field = buildField(spec, struct)
      if (field.tag !== null) {
        if (tags.has(field.tag)) throw new Error(`${fileName}: tag ${field.tag} used twice in ${jsonName}`)
        tags.add(field.tag)
      }
      struct.fields.push(field)
    }
    return struct
  }

  const buildField = (spec, parent) => {
    const where = `${parent.jsonName}.${spec.name}`
    const array = spec.type.startsWith('[]')
    const typeName = array ? spec.type.slice(2) : spec.type
    // A tagged field may give only taggedVersions (Kafka's generator takes them as its versions).
    const versions = parseVersions(spec.versions ?? spec.taggedVersions, where)
    if (versions === null) throw new Error(`${fileName}: ${where} has no versions`)
    const field = {
      name: spec.name,
      camel: camel(spec.name),
      where,
      type: PRIMITIVES.has(typeName) ? typeName : 'struct',
      array,
      struct: null,
      versions,
      nullable: parseVersions(spec.nullableVersions, where),
      tag: spec.tag ?? null,
      taggedVersions: spec.tag === undefined ? null : parseVersions(spec.taggedVersions, where),
      // undefined: as the message; null: never (RequestHeader.ClientId's "none").
      flexible: spec.flexibleVersions === undefined ? undefined : parseVersions(spec.flexibleVersions, where),
      ignorable: spec.ignorable === true,
      default: null,
      about: spec.about ?? '',
    }
    if (field.tag !== null) {
      if (field.taggedVersions === null) throw new Error(`${fileName}: ${where} has a tag but no taggedVersions`)
      if (msg.flexibleFrom > field.taggedVersions.lo) throw new Error(`${fileName}: ${where} is tagged in a version that is not flexible`)
      // Every tagged field in the spec has taggedVersions == versions; the codec relies on it.
      if (formatVersions(field.taggedVersions) !== formatVersions(versions)) {
        throw new Error(`${fileName}: ${where} has taggedVersions different from versions`)
      }
    }
    if (field.nullable !== null && !(field.array || ['string', 'bytes', 'records', 'struct'].includes(field.type))) {
      throw new Error(`${fileName}: ${where} is ${spec.type}, which cannot be nullable`)
    }
    if (field.type === 'struct') {
      if (spec.fields) {
        const known = intersect(versions, parent.known)
        field.struct = buildStruct(typeName, tsNameFor(typeName), spec.fields, known ?? versions, false)
      } else if (built.has(typeName) && built.get(typeName).common) {
        field.struct = built.get(typeName)
      } else if (commonSpecs.has(typeName)) {
        field.struct = buildStruct(typeName, tsNameFor(typeName), commonSpecs.get(typeName).fields, valid, true)
      } else {
        throw new Error(`${fileName}: ${where} has unknown type ${typeName}`)
      }
    }
    field.default = parseDefault(field, spec.default, where)
    return field
  }

  // APIs Kafka has retired keep a file with validVersions "none" and no fields.
  msg.root = buildStruct(json.name, json.name, json.fields ?? [], valid, false)
  return msg
}

function parseDefault(field, raw, where) {
  const text = raw === undefined ? undefined : String(raw).trim()
  if (field.array) {
    if (text === undefined) return 'empty'
    if (text === 'null') {
      if (field.nullable === null) throw new Error(`${where}: default null on a field that is never nullable`)
      return null
    }
    throw new Error(`${where}: arrays can only default to null`)
  }
  switch (field.type) {
    case 'bool':
      if (text === undefined) return false
      if (text === 'true' || text === 'false') return text === 'true'
      break
    case 'int8':
    case 'int16':
    case 'int32':
    case 'uint16':
    case 'uint32': {
      if (text === undefined) return 0
      const n = parseInteger(text)
      const [lo, hi] = INTEGERS[field.type]
      if (n !== null && n >= lo && n <= hi) return n
      break
    }
    case 'int64': {
      if (text === undefined) return 0n
      const n = parseBigInteger(text)
      if (n !== null && n >= -(2n ** 63n) && n < 2n ** 63n) return n
      break
    }
    case 'float64': {
      if (text === undefined) return 0
      const n = Number(text)
      if (!Number.isNaN(n) || text === 'NaN') return n
      break
    }
    case 'string':
      if (text === undefined) return ''
      if (text === 'null') {
        if (field.nullable === null) throw new Error(`${where}: default null on a field that is never nullable`)
        return null
      }
      return String(raw)
    case 'uuid':
      if (text === undefined) return ZERO_UUID
      if (/^[A-Za-z0-9_-]{21}[AQgw]$/.test(text)) return text
      break
    case 'bytes':
      if (text === undefined) return 'empty'
      if (text === 'null' && field.nullable !== null) return null
      break
    case 'records':
      if (text === undefined || text === 'null') return null
      break
    case 'struct':
      if (text === undefined) return 'struct'
      if (text === 'null' && field.nullable !== null) return null
      break
  }
  throw new Error(`${where}: cannot use ${JSON.stringify(raw)} as the default of a ${field.type}`)
}

function parseInteger(text) {
  const m = /^(-?)(0x[0-9a-f]+|\d+)$/i.exec(text)
  if (!m) return null
  const n = Number(m[2])
  return m[1] ? -n : n
}

function parseBigInteger(text) {
  const m = /^(-?)(0x[0-9a-f]+|\d+)$/i.exec(text)
  if (!m) return null
  const n = BigInt(m[2])
  return m[1] ? -n : n
}
