// Types of ci-lists.mjs.
export type CiRun = 'memory-classic' | 'disk-classic' | 'memory-consumer'
export declare function passingOnKafka(protocol: 'classic' | 'consumer'): string[]
export declare const CI_LISTS: Record<CiRun, { numbers: string[]; protocol: 'classic' | 'consumer'; disk: boolean; minutes: number }>
export declare const NOT_YET_RELIABLE: Record<'classic' | 'consumer', Record<string, string>>
export declare const RACY_ON_KAFKA: Record<'classic' | 'consumer', Record<string, string>>
