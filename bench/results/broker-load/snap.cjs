// node --expose-gc --require bench/results/broker-load/snap.cjs (through WAFKA_BROKER_NODE_ARGS; SNAPSHOT_DIR: where).
// At exit (every topic deleted, in a suite run): a full GC, then a heap snapshot, to find what holds the array buffers still live.
const v8 = require('node:v8')
process.on('exit', () => {
  globalThis.gc?.()
  v8.writeHeapSnapshot(`${process.env.SNAPSHOT_DIR ?? '.'}/exit-${process.pid}.heapsnapshot`)
})
