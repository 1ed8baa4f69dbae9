/**
 * Kafka's `ssl.principal.mapping.rules`: a comma-separated list of
 * `RULE:pattern/replacement/[LU]` and `DEFAULT`, tried in order on a TLS
 * client certificate's subject (its RFC 2253 form, x500-name.ts) until one
 * matches the whole subject. Its grammar, `\` escapes (`\/` for a slash in
 * a pattern), `$n` references (one past the pattern's groups is kept
 * literally, as Kafka keeps it) and L/U (lower/upper case after the
 * replacement) are Kafka's SslPrincipalMapper's.
 */

/** One rule: DEFAULT (the subject as is) or a pattern and its replacement. */
interface Rule {
  readonly text: string
  apply(dn: string): string | null
}

/** A rule's grammar: DEFAULT | RULE:pattern/replacement/flag (then anything, refused by the parser) | anything else (refused). */
const RULE = String.raw`(DEFAULT)|RULE:((?:\\.|[^\\/])*)/((?:\\.|[^\\/])*)/([LU]?).*?|(.*?)`
/** Splits the list: each rule, surrounded by spaces, up to a comma or the end (Kafka's splitter, lazy tail included). */
const SPLITTER = new RegExp(String.raw`\s*(${RULE})\s*(?:,\s*|$)`, 'g')
const PARSER = new RegExp(`^(?:${RULE})`)

export class InvalidMappingRule extends Error {
  override name = 'InvalidMappingRule'
}

/** A subject no rule matched (Kafka's NoMatchingRule): the connection is refused. */
export class NoMatchingRule extends Error {
  override name = 'NoMatchingRule'
}

export class SslPrincipalMapper {
  private constructor(private readonly rules: readonly Rule[]) {}

  /** The mapper of a rules setting (undefined: Kafka's default, DEFAULT); throws InvalidMappingRule. */
  static fromRules(text: string | undefined): SslPrincipalMapper {
    const rules: Rule[] = []
    for (const part of splitRules(text ?? 'DEFAULT')) {
      const m = PARSER.exec(part)!
      if (m[0].length !== part.length)
        throw new InvalidMappingRule(`Invalid rule: \`${part}\`, unmatched substring: \`${part.slice(m[0].length)}\``)
      if (m[1] !== undefined) rules.push({ text: 'DEFAULT', apply: (dn) => dn })
      else if (m[2] !== undefined) rules.push(patternRule(m[2], m[3], m[4]))
      // An empty rule (between two commas) is ignored.
    }
    return new SslPrincipalMapper(rules)
  }

  /** The principal name for a subject; throws NoMatchingRule when no rule applies. */
  name(dn: string): string {
    for (const rule of this.rules) {
      const name = rule.apply(dn)
      if (name !== null) return name
    }
    throw new NoMatchingRule(`No rules apply to ${dn}, rules [${this.describe().join(', ')}]`)
  }

  /** The rules as Kafka prints them (`RULE:pattern/replacement/L`, `DEFAULT`). */
  describe(): string[] {
    return this.rules.map((r) => r.text)
  }
}

function splitRules(text: string): string[] {
  const parts: string[] = []
  const input = text.trim()
  SPLITTER.lastIndex = 0
  for (let m = SPLITTER.exec(input); m; m = SPLITTER.exec(input)) {
    parts.push(m[1])
    // An empty match moves on by one (as Java's Matcher.find does).
    if (m[0].length === 0) SPLITTER.lastIndex++
    if (SPLITTER.lastIndex > input.length) break
  }
  return parts
}

function patternRule(pattern: string, replacement: string, flag: string): Rule {
  let whole: RegExp
  let each: RegExp
  try {
    whole = new RegExp(`^(?:${pattern})$`)
    each = new RegExp(pattern, 'g')
  } catch (err) {
    throw new InvalidMappingRule(`Invalid rule: RULE:${pattern}/${replacement}/${flag}: ${(err as Error).message}`)
  }
  const text = `RULE:${pattern}/${replacement}${flag ? `/${flag}` : ''}`
  return {
    text,
    apply(dn) {
      if (!whole.test(dn)) return null
      // Every match replaced, as Java's replaceAll (a pattern that also matches empty replaces twice).
      const name = dn.replace(each, (...args) => {
        const named = typeof args.at(-1) === 'object' ? (args.at(-1) as Record<string, string | undefined>) : undefined
        const groups = args.slice(0, named ? -3 : -2) as Array<string | undefined>
        return expand(replacement, groups, named, text)
      })
      return flag === 'L' ? name.toLowerCase() : flag === 'U' ? name.toUpperCase() : name
    },
  }
}

/**
 * A replacement with Java's syntax: `\c` is c, `$n` the group n (digits
 * taken while they name a group), `${name}` a named group. A first digit
 * past the groups is kept literally (Kafka escapes it); with no groups at
 * all it fails as Java's does.
 */
function expand(
  replacement: string,
  groups: Array<string | undefined>,
  named: Record<string, string | undefined> | undefined,
  rule: string,
): string {
  const count = groups.length - 1
  let out = ''
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]
    if (c === '\\') {
      if (++i >= replacement.length) throw new NoMatchingRule(`${rule}: character to be escaped is missing`)
      out += replacement[i]
    } else if (c === '$') {
      const next = replacement[i + 1]
      if (next === '{') {
        const end = replacement.indexOf('}', i)
        const name = end < 0 ? '' : replacement.slice(i + 2, end)
        if (!named || !(name in named)) throw new NoMatchingRule(`${rule}: no group with name {${name}}`)
        out += named[name] ?? ''
        i = end
        continue
      }
      if (next === undefined || next < '0' || next > '9') throw new NoMatchingRule(`${rule}: illegal group reference`)
      let ref = Number(next)
      if (ref > count) {
        if (count === 0) throw new NoMatchingRule(`${rule}: no group ${ref}`)
        out += '$'
        continue
      }
      i++
      while (i + 1 < replacement.length && replacement[i + 1] >= '0' && replacement[i + 1] <= '9') {
        const longer = ref * 10 + Number(replacement[i + 1])
        if (longer > count) break
        ref = longer
        i++
      }
      out += groups[ref] ?? ''
    } else out += c
  }
  return out
}
