// Java's .properties syntax as Kafka reads server.properties (java.util.Properties.load).
import { describe, expect, it } from 'vitest'
import { parseProperties, parsePropertyLines } from '../../src/broker/properties-file.js'

describe('parseProperties', () => {
  it('takes key=value, key: value and key value, trimming around the separator but not the value end', () => {
    expect(parseProperties('a=1\nb: 2\nc 3\n  d  =  4 \ne:=5\nf==6\ng')).toEqual({
      a: '1',
      b: '2',
      c: '3',
      d: '4 ',
      e: '=5',
      f: '=6',
      g: '',
    })
  })

  it('skips # and ! comment lines and blank lines; a # inside a value is the value', () => {
    expect(parseProperties('# comment\n  ! also\n\n\t\nurl=http://h/#frag\n')).toEqual({ url: 'http://h/#frag' })
  })

  it("joins continued lines (an odd number of trailing backslashes), dropping the next line's leading blanks", () => {
    const text = 'listeners=PLAINTEXT://:9092,\\\n    SSL://:9093\npath=C:\\\\\nnext=1\nlast=x\\'
    expect(parseProperties(text)).toEqual({ listeners: 'PLAINTEXT://:9092,SSL://:9093', path: 'C:\\', next: '1', last: 'x' })
    // A comment line ending in a backslash does not continue.
    expect(parseProperties('# note \\\nkey=v')).toEqual({ key: 'v' })
  })

  it('reads escapes: \\t \\n \\r \\f, \\uXXXX, and an escaped separator or blank in a key', () => {
    expect(parseProperties('a\\=b\\:c\\ d=1\ntab=x\\ty\\nz\nu=\\u00e9t\\u00E9\nother=\\q\\\\')).toEqual({
      'a=b:c d': '1',
      tab: 'x\ty\nz',
      u: 'été',
      other: 'q\\',
    })
  })

  it("takes \\r\\n and \\r line ends; a repeated key keeps its last value; lines are numbered from the entry's first", () => {
    expect(parseProperties('a=1\r\nb=2\rc=3\na=4')).toEqual({ a: '4', b: '2', c: '3' })
    expect(parsePropertyLines('# x\nk=a\\\n b\nm=1')).toEqual([
      { key: 'k', value: 'ab', line: 2 },
      { key: 'm', value: '1', line: 4 },
    ])
  })
})
