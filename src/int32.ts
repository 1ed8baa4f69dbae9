/**
 * The largest int32: the widest value of Kafka's int32 fields (timeouts,
 * offsets deltas, sequence numbers, epochs) and the longest delay setTimeout
 * takes (a longer one fires at once). A mask `& 0x7fffffff` (a hash made
 * non-negative) is a different idea and is written as the literal.
 */
export const INT32_MAX = 2_147_483_647
