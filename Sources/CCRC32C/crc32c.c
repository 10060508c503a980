// CRC32C (Castagnoli, reflected polynomial 0x82F63B78). The SSE4.2 crc32 instruction is
// used when the CPU has it (about 10 GB/s); otherwise slicing-by-8 tables (about 2 GB/s).
#include "crc32c.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

static uint32_t table[8][256];
static int use_hardware = 0;
static pthread_once_t initialized = PTHREAD_ONCE_INIT;

static void build_tables(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t crc = i;
        for (int bit = 0; bit < 8; bit++) {
            crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        }
        table[0][i] = crc;
    }
    for (uint32_t i = 0; i < 256; i++) {
        for (int slice = 1; slice < 8; slice++) {
            table[slice][i] = (table[slice - 1][i] >> 8) ^ table[0][table[slice - 1][i] & 0xFF];
        }
    }
}

static uint32_t extend_software(uint32_t crc, const uint8_t *p, size_t n) {
    while (n >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        word ^= crc;
        crc = table[7][word & 0xFF] ^ table[6][(word >> 8) & 0xFF] ^
              table[5][(word >> 16) & 0xFF] ^ table[4][(word >> 24) & 0xFF] ^
              table[3][(word >> 32) & 0xFF] ^ table[2][(word >> 40) & 0xFF] ^
              table[1][(word >> 48) & 0xFF] ^ table[0][word >> 56];
        p += 8;
        n -= 8;
    }
    while (n--) {
        crc = table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    }
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t extend_hardware(uint32_t crc, const uint8_t *p, size_t n) {
    uint64_t crc64 = crc;
    while (n >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        crc64 = _mm_crc32_u64(crc64, word);
        p += 8;
        n -= 8;
    }
    uint32_t crc32 = (uint32_t)crc64;
    while (n--) {
        crc32 = _mm_crc32_u8(crc32, *p++);
    }
    return crc32;
}
#endif

static void initialize(void) {
    build_tables();
#if defined(__x86_64__)
    __builtin_cpu_init();
    use_hardware = __builtin_cpu_supports("sse4.2") ? 1 : 0;
#endif
}

uint32_t mr_crc32c_extend(uint32_t crc, const void *bytes, size_t length) {
    pthread_once(&initialized, initialize);
    uint32_t state = ~crc;
#if defined(__x86_64__)
    if (use_hardware) {
        return ~extend_hardware(state, (const uint8_t *)bytes, length);
    }
#endif
    return ~extend_software(state, (const uint8_t *)bytes, length);
}
