import { describe, expect, it } from 'vitest'
import { csvField, csvLines } from './csv.js'

describe('csv', () => {
  it('quotes commas, quotes and line breaks; empty for null', () => {
    expect(
      csvLines(
        ['a', 'b', 'c'],
        [
          ['x,y', 'say "hi"', null],
          ['line\nbreak', 3, undefined],
        ],
      ),
    ).toEqual(['a,b,c', '"x,y","say ""hi""",', '"line\nbreak",3,'])
  })

  it('a text field a spreadsheet would evaluate is kept as text; numbers are left alone', () => {
    expect(csvField('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`)
    expect(csvField('+1')).toBe("'+1")
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvField('-2')).toBe("'-2")
    expect(csvField(-2)).toBe('-2')
    expect(csvField('0.01')).toBe('0.01')
  })
})
