// Types of internal-topics.mjs (plain JavaScript so suite-targets.mjs can import it without a TypeScript loader).
export declare const RIG_INTERNAL_TOPICS: Readonly<Record<string, string>>
