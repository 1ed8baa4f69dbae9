// Types of build.mjs (plain JavaScript so .ci/run can call it without a TypeScript loader).
export type PeerBuild = 'legacy' | 'modern'
export declare const cacheDir: string
export declare function buildMockCluster(build: PeerBuild): { path: string } | { error: string }
export declare function buildPeerProgram(name: string, build: PeerBuild): { path: string } | { error: string }
