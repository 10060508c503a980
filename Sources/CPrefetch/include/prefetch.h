#ifndef MAGICALRECORD_PREFETCH_H
#define MAGICALRECORD_PREFETCH_H

/// Asks the CPU to bring the cache line at `address` in for a read soon, without waiting
/// for it: a batch loop names the memory its next records will touch while it works on
/// this one, so their cache misses overlap instead of following each other.
static inline void mr_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
