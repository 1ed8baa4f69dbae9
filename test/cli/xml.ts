// A strict little XML reader for the benchmark charts: elements, quoted
// attributes, text, the five predefined entities and numeric ones. It throws on
// anything not well-formed (unclosed or mismatched tags, bare '&' or '<',
// unquoted or repeated attributes, text outside the root), which is what the
// tests need to know of an SVG file.

export interface XmlElement {
  name: string
  attributes: Record<string, string>
  children: XmlElement[]
  text: string
}

const NAME = /^[A-Za-z_:][\w:.-]*/

function decode(text: string, at: number): string {
  return text.replace(/&([^;]*);?/g, (whole, entity: string) => {
    if (!whole.endsWith(';')) throw new Error(`bare & near offset ${at}`)
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }
    if (entity in named) return named[entity]
    const m = /^#(x[0-9a-fA-F]+|\d+)$/.exec(entity)
    if (!m) throw new Error(`unknown entity &${entity}; near offset ${at}`)
    return String.fromCodePoint(m[1].startsWith('x') ? parseInt(m[1].slice(1), 16) : Number(m[1]))
  })
}

export function parseXml(source: string): XmlElement {
  let i = 0
  const stack: XmlElement[] = []
  let root: XmlElement | undefined
  const skipSpace = () => {
    while (i < source.length && /\s/.test(source[i])) i++
  }
  if (source.startsWith('<?xml')) i = source.indexOf('?>') + 2
  while (i < source.length) {
    if (source[i] !== '<') {
      const end = source.indexOf('<', i)
      const raw = source.slice(i, end < 0 ? source.length : end)
      if (stack.length === 0) {
        if (raw.trim() !== '') throw new Error(`text outside the root element at offset ${i}`)
      } else stack[stack.length - 1].text += decode(raw, i)
      i = end < 0 ? source.length : end
      continue
    }
    if (source.startsWith('<!--', i)) {
      const end = source.indexOf('-->', i)
      if (end < 0) throw new Error('unclosed comment')
      i = end + 3
      continue
    }
    if (source[i + 1] === '/') {
      const m = NAME.exec(source.slice(i + 2))
      const open = stack.pop()
      if (!m || !open || open.name !== m[0]) throw new Error(`</${m?.[0]}> does not close <${open?.name}> at offset ${i}`)
      i += 2 + m[0].length
      skipSpace()
      if (source[i] !== '>') throw new Error(`bad closing tag at offset ${i}`)
      i++
      continue
    }
    const m = NAME.exec(source.slice(i + 1))
    if (!m) throw new Error(`bad tag at offset ${i}`)
    const el: XmlElement = { name: m[0], attributes: {}, children: [], text: '' }
    const parent = stack[stack.length - 1]
    if (parent) parent.children.push(el)
    else if (root) throw new Error(`a second root element at offset ${i}`)
    else root = el
    i += 1 + m[0].length
    for (;;) {
      const before = i
      skipSpace()
      if (source.startsWith('/>', i)) {
        i += 2
        break
      }
      if (source[i] === '>') {
        i++
        stack.push(el)
        break
      }
      if (i === before) throw new Error(`no space before an attribute at offset ${i}`)
      const a = NAME.exec(source.slice(i))
      if (!a) throw new Error(`bad attribute at offset ${i}`)
      i += a[0].length
      if (source[i] !== '=' || (source[i + 1] !== '"' && source[i + 1] !== "'"))
        throw new Error(`attribute ${a[0]} is not quoted at offset ${i}`)
      const quote = source[i + 1]
      const end = source.indexOf(quote, i + 2)
      if (end < 0) throw new Error(`unclosed attribute ${a[0]}`)
      const value = source.slice(i + 2, end)
      if (value.includes('<')) throw new Error(`'<' in attribute ${a[0]}`)
      if (a[0] in el.attributes) throw new Error(`attribute ${a[0]} twice`)
      el.attributes[a[0]] = decode(value, i)
      i = end + 1
    }
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1].name}> is never closed`)
  if (!root) throw new Error('no root element')
  return root
}

/** Every element below (and including) `el`, depth first. */
export function descendants(el: XmlElement): XmlElement[] {
  return [el, ...el.children.flatMap(descendants)]
}
