// Emits the TypeScript for one message's structs: an interface per struct,
// and per struct one writer and one reader shared by every version, with a
// straight-line `if (version >= N)` per field that is not in all of them.
import { ZERO_UUID, formatVersions, intersect } from './spec.mjs'

export const q = (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`

const SCALAR_TS = {
  bool: 'boolean',
  int8: 'number',
  int16: 'number',
  int32: 'number',
  int64: 'bigint',
  uint16: 'number',
  uint32: 'number',
  float64: 'number',
  string: 'string',
  uuid: 'string',
  bytes: 'Buffer',
  records: 'Buffer',
}
const METHOD = {
  bool: 'bool',
  int8: 'int8',
  int16: 'int16',
  int32: 'int32',
  int64: 'int64',
  uint16: 'uint16',
  uint32: 'uint32',
  float64: 'float64',
  uuid: 'uuid',
}
const ELEMENT = {
  bool: 'Bool',
  int8: 'Int8',
  int16: 'Int16',
  int32: 'Int32',
  int64: 'Int64',
  uint16: 'Uint16',
  uint32: 'Uint32',
  float64: 'Float64',
  uuid: 'Uuid',
  string: 'String',
  bytes: 'Bytes',
}

/** Collects what the emitted code needs from the runtime, and which helper functions to emit. */
export class EmitContext {
  constructor() {
    this.api = new Set()
    this.reader = new Set()
    this.writer = new Set()
    this.needDefault = new Set()
    this.needIsDefault = new Set()
    this.usesBuffer = false
  }
}

/**
 * A condition on `version` that holds where `range` meets `within` (the
 * versions the code can run in). Returns 'true', 'false' or an expression.
 */
export function cond(range, within) {
  const r = intersect(range, within)
  if (r === null) return 'false'
  const parts = []
  if (r.lo > within.lo) parts.push(`version >= ${r.lo}`)
  if (r.hi < within.hi) parts.push(`version <= ${r.hi}`)
  return parts.length === 0 ? 'true' : parts.join(' && ')
}

function negate(c) {
  let m
  if ((m = /^version >= (\d+)$/.exec(c))) return `version < ${m[1]}`
  if ((m = /^version <= (\d+)$/.exec(c))) return `version > ${m[1]}`
  return `!(${c})`
}

/** A conditional choice between two expressions, folded when the condition is constant. */
function pick(c, a, b) {
  if (c === 'true') return a
  if (c === 'false') return b
  const wrap = (e) => (e.includes(' ? ') && !/^[\w.]+\(.*\)$/.test(e) ? `(${e})` : e)
  return `${c} ? ${wrap(a)} : ${wrap(b)}`
}

const flexRange = (msg) => (msg.flexibleFrom === Infinity ? null : { lo: msg.flexibleFrom, hi: Infinity })

/** Whether a struct's code runs in flexible versions: 'true', 'false' or 'flexible' (the local). */
function structFlex(msg, struct) {
  const range = flexRange(msg)
  if (range === null) return 'false'
  const c = cond(range, struct.known)
  return c === 'true' || c === 'false' ? c : 'flexible'
}

/** Whether a field is written compact, within the versions it is present in. */
function fieldFlex(msg, field, present) {
  const own = field.flexible !== undefined
  const range = own ? field.flexible : flexRange(msg)
  if (range === null) return 'false'
  const c = cond(range, present)
  if (c === 'true' || c === 'false') return c
  return own ? `(${c})` : 'flexible'
}

const isNullableType = (f) => f.nullable !== null || f.default === null

export function tsType(f) {
  let t = f.type === 'struct' ? f.struct.tsName : SCALAR_TS[f.type]
  if (f.array) t += '[]'
  return isNullableType(f) ? `${t} | null` : t
}

/** The default as a decoded value (a fresh object for structs and arrays). */
function literal(f, ctx) {
  const d = f.default
  if (d === null) return 'null'
  if (d === 'empty') {
    if (f.array) return '[]'
    ctx.api.add('EMPTY_BYTES')
    return 'EMPTY_BYTES'
  }
  if (d === 'struct') {
    ctx.needDefault.add(f.struct)
    return `default${f.struct.tsName}()`
  }
  if (typeof d === 'bigint') return `${d}n`
  if (typeof d === 'number') return Object.is(d, -0) ? '-0' : String(d)
  if (typeof d === 'boolean') return String(d)
  if (f.type === 'uuid' && d === ZERO_UUID) {
    ctx.api.add('ZERO_UUID')
    return 'ZERO_UUID'
  }
  return q(d)
}

/** The default as an encoder input: a struct default is `{}` (all of its fields at their defaults). */
function inputLiteral(f, ctx) {
  return f.default === 'struct' ? '{}' : literal(f, ctx)
}

/** The value to encode: the caller's, or the default when the caller left it out. */
function valueExpr(f, ctx, source = 'v') {
  const acc = `${source}.${f.camel}`
  if (f.default === null) return `${acc} ?? null`
  // Null means "unset" for a field that is never nullable.
  if (f.nullable === null) return `${acc} ?? ${inputLiteral(f, ctx)}`
  return `${acc} === undefined ? ${inputLiteral(f, ctx)} : ${acc}`
}

/** Expressions testing whether `e` (not undefined) is, or is not, the field's default. */
function defaultTests(f, e, ctx) {
  const d = f.default
  if (d === null) return { is: `${e} === null`, not: `${e} !== null` }
  let is
  let not
  if (f.array) {
    is = `${e}.length === 0`
    not = `${e}.length !== 0`
  } else if (f.type === 'bytes' || f.type === 'records') {
    ctx.writer.add('bytesLength')
    is = `bytesLength(${e}) === 0`
    not = `bytesLength(${e}) !== 0`
  } else if (f.type === 'struct') {
    ctx.needIsDefault.add(f.struct)
    is = `isDefault${f.struct.tsName}(${e})`
    not = `!isDefault${f.struct.tsName}(${e})`
  } else {
    const lit = literal(f, ctx)
    return { is: `${e} === ${lit}`, not: `${e} !== ${lit}` }
  }
  if (f.nullable !== null) {
    is = `(${e} !== null && ${is})`
    not = `(${e} === null || ${not})`
  }
  return { is, not }
}

const stringMethod = (nullable, compact) =>
  compact ? (nullable ? 'compactNullableString' : 'compactString') : nullable ? 'nullableString' : 'string'
const bytesMethod = (nullable, compact) =>
  compact ? (nullable ? 'compactNullableBytes' : 'compactBytes') : nullable ? 'nullableBytes' : 'bytes'

/** Versions (within `present`) where the field may be null: 'true', 'false' or a condition. */
function nullCond(f, present) {
  if (f.nullable === null) return f.default === null ? 'true' : 'false'
  return cond(f.nullable, present)
}

function elementCodec(f, ctx, kind) {
  if (f.type === 'struct') return `${kind}${f.struct.tsName}`
  const name = `${kind}${ELEMENT[f.type]}`
  ;(kind === 'read' ? ctx.reader : ctx.writer).add(name)
  return name
}

/** Lines writing `e` for field f, in versions `present`; `raw` is the caller's value, to test for null. */
function writeLines(msg, f, present, e, ctx, raw = e) {
  const fx = fieldFlex(msg, f, present)
  const nc = nullCond(f, present)
  const lines = []
  if (nc !== 'true' && isNullableType(f) && f.nullable !== null) {
    // Nullable in some versions only: null is an error in the others.
    ctx.api.add('nullField')
    const guard = nc === 'false' ? '' : ` && ${negate(nc)}`
    lines.push(`if (${raw} === null${guard}) throw nullField(${q(f.where)}, ${q(formatVersions(f.nullable))})`)
  }
  const nullable = nc !== 'false'
  if (f.array) {
    lines.push(`w.array(${fx}, version, ${e}, ${elementCodec(f, ctx, 'write')})`)
  } else if (f.type === 'struct') {
    const plain = `write${f.struct.tsName}(w, version, ${e}${nc === 'false' ? '' : '!'})`
    const withMarker = `w.nullableStruct(version, ${e}, write${f.struct.tsName}, ${fx})`
    lines.push(nc === 'true' ? withMarker : nc === 'false' ? plain : `if (${nc}) ${withMarker}\nelse ${plain}`)
  } else if (f.type === 'string') {
    lines.push(pick(fx, `w.${stringMethod(nullable, true)}(${e})`, `w.${stringMethod(nullable, false)}(${e})`))
  } else if (f.type === 'bytes' || f.type === 'records') {
    lines.push(pick(fx, `w.${bytesMethod(nullable, true)}(${e})`, `w.${bytesMethod(nullable, false)}(${e})`))
  } else {
    lines.push(`w.${METHOD[f.type]}(${e})`)
  }
  return lines.flatMap((l) => l.split('\n'))
}

/**
 * Non-nullable bytes fields that peers are known to send as null, read as
 * empty instead of refused: librdkafka (its mock broker included) answers
 * SyncGroup with a null assignment for a member given nothing, or with an
 * error, and librdkafka and the Java client read it as no partitions.
 */
const NULL_READ_AS_EMPTY = new Set(['SyncGroupResponse.Assignment'])

/** An expression reading field f, in versions `present`. */
function readExpr(msg, f, present, ctx) {
  const fx = fieldFlex(msg, f, present)
  const nc = nullCond(f, present)
  const what = q(f.where)
  if (f.type === 'bytes' && !f.array && nc === 'false' && NULL_READ_AS_EMPTY.has(f.where)) {
    return `((${pick(fx, `r.compactNullableBytes(${what})`, `r.nullableBytes(${what})`)}) ?? EMPTY_BYTES)`
  }
  const either = (make) => {
    const n = make(true)
    const p = make(false)
    return nc === 'true' ? n : nc === 'false' ? p : `(${nc} ? ${n} : ${p})`
  }
  if (f.array) {
    const elem = elementCodec(f, ctx, 'read')
    return either((nullable) => `r.${nullable ? 'nullableArray' : 'array'}(${fx}, version, ${elem}, ${what})`)
  }
  if (f.type === 'struct') {
    const ts = f.struct.tsName
    return either((nullable) => (nullable ? `r.nullableStruct(${fx}, version, read${ts}, ${what})` : `read${ts}(r, version)`))
  }
  if (f.type === 'string') {
    return either((nullable) => pick(fx, `r.${stringMethod(nullable, true)}(${what})`, `r.${stringMethod(nullable, false)}(${what})`))
  }
  if (f.type === 'bytes' || f.type === 'records') {
    return either((nullable) => pick(fx, `r.${bytesMethod(nullable, true)}(${what})`, `r.${bytesMethod(nullable, false)}(${what})`))
  }
  return `r.${METHOD[f.type]}(${what})`
}

const indent = (lines, n = 1) => lines.map((l) => (l === '' ? l : '  '.repeat(n) + l))

/** `if (c) body`, with braces only when the body has more than one line. */
function guarded(c, body) {
  if (c === 'true') return body
  if (body.length === 1) return [`if (${c}) ${body[0]}`]
  return [`if (${c}) {`, ...indent(body), '}']
}

function emitWriter(msg, struct, ctx) {
  const sf = structFlex(msg, struct)
  const out = []
  if (sf === 'flexible') out.push(`const flexible = version >= ${msg.flexibleFrom}`)
  const tagged = []
  const absentTagged = []
  for (const f of struct.fields) {
    const present = intersect(f.versions, struct.known)
    const c = present === null ? 'false' : cond(f.versions, struct.known)
    const acc = `v.${f.camel}`
    const check = f.ignorable || c === 'true' ? null : `${acc} !== undefined && ${defaultTests(f, acc, ctx).not}`
    if (check !== null) ctx.api.add('absentField')
    const thrower = `throw absentField(${q(f.where)}, ${q(formatVersions(f.versions))})`
    if (f.tag !== null) {
      if (present !== null) tagged.push(f)
      if (check !== null) absentTagged.push(`if (${c === 'false' ? '' : `${negate(c)} && `}${check}) ${thrower}`)
      continue
    }
    if (c === 'false') {
      if (check !== null) out.push(`if (${check}) ${thrower}`)
      continue
    }
    // A record set left out where the version cannot write null (ShareFetch v1+ Records) is an empty one, as Kafka's MemoryRecords.EMPTY.
    const emptyRecords = f.type === 'records' && f.default === null && nullCond(f, present) === 'false'
    if (emptyRecords) ctx.api.add('EMPTY_BYTES')
    const value = emptyRecords ? `v.${f.camel} ?? EMPTY_BYTES` : valueExpr(f, ctx)
    const body = writeLines(msg, f, present, value, ctx, `v.${f.camel}`)
    out.push(...guarded(c, body))
    if (check !== null) {
      if (body.length === 1 && !body[0].startsWith('if ')) out.push(`else if (${check}) ${thrower}`)
      else out.push(`if (${negate(c)} && ${check}) ${thrower}`)
    }
  }
  out.push(...absentTagged)
  if (sf !== 'false') {
    const section = []
    if (tagged.length === 0) {
      section.push('w.tags(v._unknownTags)')
    } else {
      const flexKnown = intersect(struct.known, flexRange(msg))
      tagged.sort((a, b) => a.tag - b.tag)
      section.push('const u = v._unknownTags')
      for (const f of tagged) {
        const c = cond(f.versions, flexKnown)
        const t = `t${f.tag}`
        section.push(`const ${t} = ${valueExpr(f, ctx)}`)
        const written = taggedNullableStruct(f) ? 'true' : defaultTests(f, t, ctx).not
        section.push(`const has${f.tag} = ${c === 'true' ? '' : `${c} && `}${written}`)
      }
      section.push(`w.uvarint((u === undefined ? 0 : u.length) + ${tagged.map((f) => `(has${f.tag} ? 1 : 0)`).join(' + ')})`)
      section.push('let i = 0')
      for (const f of tagged) {
        const present = intersect(f.versions, flexKnown)
        section.push(`if (has${f.tag}) {`)
        section.push(`  i = w.unknownTags(u, i, ${f.tag})`)
        section.push(`  const at = w.startTag(${f.tag})`)
        if (taggedNullableStruct(f))
          section.push(
            `  if (t${f.tag} === null) w.uvarint(0)`,
            `  else {`,
            `    w.uvarint(1)`,
            `    write${f.struct.tsName}(w, version, t${f.tag})`,
            `  }`,
          )
        else section.push(...indent(writeLines(msg, f, present, `t${f.tag}`, ctx)))
        section.push('  w.endTag(at)')
        section.push('}')
      }
      section.push('w.unknownTags(u, i, Infinity)')
    }
    out.push(...(sf === 'true' ? section : guarded('flexible', section)))
  }
  ctx.api.add('Input')
  return [`function write${struct.tsName}(w: Writer, version: number, v: Input<${struct.tsName}>): void {`, ...indent(out), '}']
}

/**
 * A nullable struct in a tagged field (Kafka's one: ConsumerGroupMemberMetadataValue.ClassicMemberMetadata):
 * Kafka 4.4 marks it with an unsigned varint (0 for null, 1 before the struct) rather than an int8, and writes
 * the field even when it is null.
 */
function taggedNullableStruct(f) {
  return f.tag !== null && f.type === 'struct' && !f.array && f.nullable !== null
}

function emitReader(msg, struct, ctx) {
  const sf = structFlex(msg, struct)
  const out = []
  if (sf === 'flexible') out.push(`const flexible = version >= ${msg.flexibleFrom}`)
  const props = []
  const tagged = []
  for (const f of struct.fields) {
    const present = intersect(f.versions, struct.known)
    const c = present === null ? 'false' : cond(f.versions, struct.known)
    if (f.tag !== null) {
      if (present !== null) tagged.push(f)
      props.push(`${f.camel}: ${literal(f, ctx)},`)
    } else if (c === 'false') {
      props.push(`${f.camel}: ${literal(f, ctx)},`)
    } else {
      props.push(`${f.camel}: ${pick(c, readExpr(msg, f, present, ctx), literal(f, ctx))},`)
    }
  }
  const ts = struct.tsName
  if (sf === 'false') {
    out.push(`return {`, ...indent(props), '}')
  } else {
    out.push(`const v: ${ts} = {`, ...indent(props), '}')
    let section
    if (tagged.length === 0) {
      section = ['r.tags(v)']
    } else {
      const flexKnown = intersect(struct.known, flexRange(msg))
      tagged.sort((a, b) => a.tag - b.tag)
      const branches = tagged.map((f, i) => {
        const c = cond(f.versions, flexKnown)
        const test = `tag === ${f.tag}${c === 'true' ? '' : ` && ${c}`}`
        const value = taggedNullableStruct(f)
          ? `r.uvarint(${q(f.where)}) === 0 ? null : read${f.struct.tsName}(r, version)`
          : readExpr(msg, f, intersect(f.versions, flexKnown), ctx)
        return `${i === 0 ? 'if' : 'else if'} (${test}) v.${f.camel} = ${value}`
      })
      section = [
        `for (let n = r.uvarint(${q(`${struct.jsonName} tagged fields`)}); n > 0; n--) {`,
        `  const tag = r.uvarint(${q(`${struct.jsonName} tag`)})`,
        '  const outer = r.enterTag()',
        ...indent(branches),
        '  else r.unknownTag(v, tag)',
        '  r.leaveTag(outer, tag)',
        '}',
      ]
    }
    out.push(...(sf === 'true' ? section : guarded('flexible', section)))
    out.push('return v')
  }
  return [`function read${ts}(r: Reader, version: number): ${ts} {`, ...indent(out), '}']
}

function emitDefault(struct, ctx) {
  const props = struct.fields.map((f) => `${f.camel}: ${literal(f, ctx)},`)
  return [`function default${struct.tsName}(): ${struct.tsName} {`, '  return {', ...indent(props, 2), '  }', '}']
}

function emitIsDefault(msg, struct, ctx) {
  const terms = struct.fields.map((f) => `(v.${f.camel} === undefined || ${defaultTests(f, `v.${f.camel}`, ctx).is})`)
  if (structFlex(msg, struct) !== 'false') terms.push('(v._unknownTags === undefined || v._unknownTags.length === 0)')
  if (terms.length === 0) terms.push('true')
  return [
    `function isDefault${struct.tsName}(v: Input<${struct.tsName}>): boolean {`,
    '  return (',
    ...terms.map((t, i) => `    ${t}${i < terms.length - 1 ? ' &&' : ''}`),
    '  )',
    '}',
  ]
}

function docComment(text, indentation = '') {
  const clean = text.replace(/\*\//g, '*\\/').trim()
  return clean === '' ? [] : [`${indentation}/** ${clean} */`]
}

function fieldNotes(f, struct) {
  const notes = []
  const within = struct.known
  if (cond(f.versions, within) !== 'true') notes.push(`v${formatVersions(intersect(f.versions, within) ?? f.versions)}`)
  if (f.nullable !== null) notes.push(`null in v${formatVersions(f.nullable)}`)
  if (f.tag !== null) notes.push(`tag ${f.tag}`)
  const d = f.default
  const zero = d === 'empty' || d === 'struct' || d === 0 || d === 0n || d === false || d === '' || d === ZERO_UUID
  if (!zero && !f.array && f.type !== 'records')
    notes.push(`default ${d === null ? 'null' : typeof d === 'bigint' ? `${d}n` : JSON.stringify(d)}`)
  return notes.length === 0 ? '' : ` (${notes.join(', ')})`
}

function emitInterface(msg, struct, ctx) {
  const flexible = structFlex(msg, struct) !== 'false'
  if (flexible) ctx.api.add('Tagged')
  const lines = []
  const where = struct === msg.root ? `${msg.name} v${formatVersions(msg.valid)}` : `${struct.jsonName} in ${msg.name}`
  lines.push(`/** ${where}. */`)
  lines.push(`export interface ${struct.tsName}${flexible ? ' extends Tagged' : ''} {`)
  for (const f of struct.fields) {
    lines.push(...docComment(`${f.about}${fieldNotes(f, struct)}`, '  '))
    lines.push(`  ${f.camel}: ${tsType(f)}`)
    if (f.type === 'bytes' || f.type === 'records') ctx.usesBuffer = true
  }
  lines.push('}')
  return lines
}

/** The interfaces and codec functions for every struct of `msg`. */
export function emitMessage(msg, ctx) {
  const types = []
  const code = []
  for (const struct of msg.structs) {
    types.push(...emitInterface(msg, struct, ctx), '')
    code.push(...emitWriter(msg, struct, ctx), '', ...emitReader(msg, struct, ctx), '')
  }
  // Helpers asked for while emitting (and by each other).
  const doneDefault = new Set()
  const doneIsDefault = new Set()
  for (let more = true; more;) {
    more = false
    for (const s of [...ctx.needDefault]) {
      if (doneDefault.has(s) || !msg.structs.includes(s)) continue
      doneDefault.add(s)
      code.push(...emitDefault(s, ctx), '')
      more = true
    }
    for (const s of [...ctx.needIsDefault]) {
      if (doneIsDefault.has(s) || !msg.structs.includes(s)) continue
      doneIsDefault.add(s)
      code.push(...emitIsDefault(msg, s, ctx), '')
      more = true
    }
  }
  return { types, code }
}
