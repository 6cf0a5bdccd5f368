/** The platform's name for the one input validator (src/sdk/parse-input.ts), used by its client and tests. */
export { parseInput as parsePlatform } from '../parse-input.js'
