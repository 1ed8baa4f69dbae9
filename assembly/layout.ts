// Shared-memory layouts between TypeScript and wasm. TypeScript mirrors
// these numbers in src/codec/layout.ts: keep both in sync.

/** Batch header (RecordBatch v2), byte offsets. */
export const B_BASE_OFFSET = 0;
export const B_LENGTH = 8;
export const B_LEADER_EPOCH = 12;
export const B_MAGIC = 16;
export const B_CRC = 17;
export const B_ATTRIBUTES = 21;
export const B_LAST_OFFSET_DELTA = 23;
export const B_BASE_TIMESTAMP = 27;
export const B_MAX_TIMESTAMP = 35;
export const B_PRODUCER_ID = 43;
export const B_PRODUCER_EPOCH = 51;
export const B_BASE_SEQUENCE = 53;
export const B_COUNT = 57;
export const B_RECORDS = 61;

/** Staged record for encoding: 32 bytes. */
export const R_SIZE = 32;
export const R_TS_DELTA = 0; // f64
export const R_KEY_PTR = 8;
export const R_KEY_LEN = 12; // -1: null
export const R_VALUE_PTR = 16;
export const R_VALUE_LEN = 20; // -1: null
export const R_HEADERS_PTR = 24; // first staged header
export const R_HEADERS_COUNT = 28;

/** Staged header: 16 bytes (also the decoded header index entry). */
export const H_SIZE = 16;
export const H_KEY_PTR = 0;
export const H_KEY_LEN = 4;
export const H_VALUE_PTR = 8;
export const H_VALUE_LEN = 12; // -1: null

/** Encode parameters. */
export const E_BASE_OFFSET = 0; // i64
export const E_BASE_TIMESTAMP = 8; // i64
export const E_MAX_TIMESTAMP = 16; // i64
export const E_PRODUCER_ID = 24; // i64
export const E_LEADER_EPOCH = 32;
export const E_PRODUCER_EPOCH = 36;
export const E_BASE_SEQUENCE = 40;
export const E_ATTRIBUTES = 44;
export const E_RECORDS = 48; // staged records
export const E_COUNT = 52;
export const E_LAST_OFFSET_DELTA = 56;
export const E_OUT = 60; // batch output
export const E_OUT_CAP = 64;
export const E_SCRATCH = 68; // uncompressed records section when compressing
export const E_SCRATCH_CAP = 72;
export const E_RECORDS_LEN = 76; // out: bytes of the uncompressed records section
export const E_OFFSET_DELTAS = 80; // i32 per record, or 0: deltas 0..count-1 (a compacted batch has gaps)
export const E_SIZE = 84;

/** Decoded record index entry: 40 bytes. Offsets are relative to the data origin. */
export const X_SIZE = 40;
export const X_TS_DELTA = 0; // f64
export const X_OFFSET_DELTA = 8;
export const X_KEY_OFF = 12;
export const X_KEY_LEN = 16;
export const X_VALUE_OFF = 20;
export const X_VALUE_LEN = 24;
export const X_HEADERS_COUNT = 28;
export const X_HEADERS_FIRST = 32;

/** Decode context: inputs, then the decoded batch's fields. */
export const D_IN = 0;
export const D_IN_LEN = 4;
export const D_POS = 8; // in/out: next entry
export const D_INDEX = 12;
export const D_INDEX_CAP = 16; // records
export const D_HEADERS = 20;
export const D_HEADERS_CAP = 24; // header entries
export const D_SCRATCH = 28;
export const D_SCRATCH_CAP = 32;
export const D_VERIFY_CRC = 36;
export const D_EXTERNAL = 40; // decompressed by TypeScript
export const D_EXTERNAL_LEN = 44;
export const D_MAGIC = 48;
export const D_ATTRIBUTES = 52;
export const D_LAST_OFFSET_DELTA = 56;
export const D_LEADER_EPOCH = 60;
export const D_PRODUCER_EPOCH = 64;
export const D_BASE_SEQUENCE = 68;
export const D_COUNT = 72;
export const D_ORIGIN = 76; // 0 input, 1 scratch, 2 external
export const D_DATA_START = 80; // records section, relative to origin
export const D_DATA_LEN = 84;
export const D_HEADERS_USED = 88;
export const D_BATCH_START = 92;
export const D_BATCH_SIZE = 96;
export const D_NEED_INDEX = 100;
export const D_NEED_HEADERS = 104;
export const D_NEED_SCRATCH = 108;
export const D_MAX_DECOMPRESSED = 112;
export const D_BODY_START = 116; // compressed body, relative to input
export const D_BODY_LEN = 120;
export const D_BASE_OFFSET = 128; // i64
export const D_PRODUCER_ID = 136; // i64
export const D_BASE_TIMESTAMP = 144; // f64
export const D_MAX_TIMESTAMP = 152; // f64
export const D_SIZE = 160;

/** decodeBatch results (non-negative; negatives are status errors). */
export const DECODED_END = 0; // no complete entry left
export const DECODED_BATCH = 1;
export const DECODED_EXTERNAL = 2; // TypeScript decompresses body, then decodeExternal
export const DECODED_NEED_SPACE = 3; // grow what D_NEED_* ask for, then retry

export const ORIGIN_INPUT = 0;
export const ORIGIN_SCRATCH = 1;
export const ORIGIN_EXTERNAL = 2;

export const CODEC_NONE = 0;
export const CODEC_GZIP = 1;
export const CODEC_SNAPPY = 2;
export const CODEC_LZ4 = 3;
export const CODEC_ZSTD = 4;
