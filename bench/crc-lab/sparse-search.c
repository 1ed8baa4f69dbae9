// Search low-weight multiples of the CRC-32C generator P(x) = 0x11EDC6F41 in
// y = x^8 (byte-granular exponents): y^K + y^a + ... + 1 == 0 (mod P), with
// every lower exponent <= K - MINOFF so the reduction's smallest byte offset
// (K - a) is at least MINOFF bytes (a 16-byte vector step must not read what
// it writes). Meet in the middle: pairs (c,d) hashed by r_c ^ r_d.
// Usage: sparse-search WEIGHT KMAX MINOFF
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#ifndef POLY
#define POLY 0x1EDC6F41u // -DPOLY=0x04C11DB7u for CRC-32 (IEEE)
#endif
static uint32_t r[1 << 16];
static uint32_t mulx8(uint32_t v) { // v * x^8 mod P, normal bit order
  for (int i = 0; i < 8; i++) { uint32_t top = v >> 31; v <<= 1; if (top) v ^= POLY; }
  return v;
}
#define HB 24
static uint32_t *hkey; static uint32_t *hval; // val = c<<16|d, key stored +1 marker via hval!=0
static void put(uint32_t k, uint32_t v) { uint32_t h = (k * 2654435761u) >> (32 - HB); while (hval[h]) h = (h + 1) & ((1 << HB) - 1); hkey[h] = k; hval[h] = v; }
int main(int argc, char **argv) {
  int w = atoi(argv[1]), kmax = atoi(argv[2]), minoff = atoi(argv[3]);
  r[0] = 1; for (int i = 1; i <= kmax; i++) r[i] = mulx8(r[i - 1]);
  hkey = calloc(1 << HB, 4); hval = calloc(1 << HB, 4);
  int amax = kmax - minoff; int found = 0;
  for (int c = 1; c <= amax; c++) for (int d = 1; d < c; d++) put(r[c] ^ r[d], (c << 16) | d);
  for (int K = minoff + 2; K <= kmax && found < 12; K++) {
    int A = K - minoff;
    if (w == 5) { // y^K + y^a + y^b + y^c + 1, b,c from the pair table
      for (int a = 1; a <= A; a++) {
        uint32_t v = r[K] ^ r[a] ^ 1; uint32_t h = (v * 2654435761u) >> (32 - HB);
        for (; hval[h]; h = (h + 1) & ((1 << HB) - 1)) if (hkey[h] == v) {
          int b = hval[h] >> 16, c = hval[h] & 0xffff;
          if (b <= A && b != a && c != a && b < a) { printf("w5 K=%d terms %d %d %d 0 minoff=%d\n", K, a, b, c, K - (a > b ? a : b)); found++; }
        }
      }
    } else if (w == 6) {
      for (int a = 1; a <= A; a++) for (int b = 1; b < a; b++) {
        uint32_t v = r[K] ^ r[a] ^ r[b] ^ 1; uint32_t h = (v * 2654435761u) >> (32 - HB);
        for (; hval[h]; h = (h + 1) & ((1 << HB) - 1)) if (hkey[h] == v) {
          int c = hval[h] >> 16, d = hval[h] & 0xffff;
          if (c < b) { printf("w6 K=%d terms %d %d %d %d 0 minoff=%d\n", K, a, b, c, d, K - a); found++; }
        }
      }
    }
  }
  return 0;
}
