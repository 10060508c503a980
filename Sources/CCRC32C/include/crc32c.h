#ifndef MAGICALSTORE_CRC32C_H
#define MAGICALSTORE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Extends a CRC32C (Castagnoli) over `length` bytes. Start with `crc = 0`; feeding a
/// buffer in pieces gives the same result as feeding it whole.
uint32_t mr_crc32c_extend(uint32_t crc, const void *bytes, size_t length);

#endif
