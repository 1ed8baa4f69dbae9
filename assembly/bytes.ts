// Big-endian loads and stores: Kafka's fixed-width integers are big-endian,
// wasm is little-endian.

// @ts-ignore: decorator
@inline export function loadI16BE(p: usize): i32 {
  return <i32>bswap<i16>(load<i16>(p));
}
// @ts-ignore: decorator
@inline export function loadI32BE(p: usize): i32 {
  return bswap<i32>(load<i32>(p));
}
// @ts-ignore: decorator
@inline export function loadI64BE(p: usize): i64 {
  return bswap<i64>(load<i64>(p));
}
// @ts-ignore: decorator
@inline export function storeI16BE(p: usize, v: i32): void {
  store<u16>(p, bswap<u16>(<u16>v));
}
// @ts-ignore: decorator
@inline export function storeI32BE(p: usize, v: i32): void {
  store<i32>(p, bswap<i32>(v));
}
// @ts-ignore: decorator
@inline export function storeI64BE(p: usize, v: i64): void {
  store<i64>(p, bswap<i64>(v));
}
