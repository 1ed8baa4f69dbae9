// esbuild (loader binary) and the vitest plugin both turn a .wasm import into its bytes.
declare module '*.wasm' {
  const bytes: Uint8Array<ArrayBuffer>
  export default bytes
}
