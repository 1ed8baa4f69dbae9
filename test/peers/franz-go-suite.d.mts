// Types of franz-go-suite.mjs (plain JavaScript: it runs as a command, without a TypeScript loader).
export interface GoTestRow {
  /** `TestGroupETL` or a subtest, `TestGroupETL/range/848`. */
  name: string
  state: 'PASS' | 'FAIL' | 'SKIP'
  seconds: number
  /** The test's own failure or skip lines (not the client's log). */
  reason?: string
}
export interface SuiteTarget {
  describe: string
  /** KGO_SEEDS and the SASL seeds for the suite. */
  env: Record<string, string>
  cpuSeconds(): number
  stop(): Promise<void>
}
export declare const FRANZ_GO_MODULE: string
export declare const FRANZ_GO_VERSION: string
export declare const DEFAULT_RECORDS: number
export declare function goEnv(extra?: Record<string, string>): NodeJS.ProcessEnv
export declare function goStatus(): { ok: boolean; version?: string; why?: string }
/** Downloads the module (once), copies it writable into ~/.cache/wafka-peers and compiles pkg/kgo's tests. */
export declare function prepareSuite(log?: (line: string) => void): { moduleDir: string; go: string }
export declare function liveTests(moduleDir: string): { name: string; file: string }[]
export declare function runPattern(names: string[]): string
/** 'wafka' | 'wafka-disk' (give dataDir) | 'kafka'. */
export declare function startTarget(target: 'wafka' | 'wafka-disk' | 'kafka', options?: { dataDir?: string }): Promise<SuiteTarget>
export declare function runGoTests(options: {
  moduleDir: string
  env: Record<string, string>
  run: string
  timeoutS?: number
  log?: (line: string) => void
}): Promise<{ rows: GoTestRow[]; code: number | null; wallSeconds: number; logDir: string }>
