// Types of lists.mjs.
export declare const KNOWN_DIFFERENCES: { wafka: Record<string, string>; kafka: Record<string, string> }
export declare const RACY_ON_KAFKA: Record<string, string>
export declare function committedRun(target: 'wafka' | 'wafka-disk' | 'kafka'): { tests: { name: string; state: string }[] } | undefined
export declare function notFailingOnKafka(): string[]
export declare const CI_TESTS: string[]
export declare function mustPass(names: string[]): string[]
export declare const CI_RECORDS: number
