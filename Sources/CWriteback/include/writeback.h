#ifndef MAGICALSTORE_WRITEBACK_H
#define MAGICALSTORE_WRITEBACK_H

#include <stdint.h>

/// Starts writing the bytes [offset, offset + count) of the file open as `descriptor` to
/// its device, without waiting for them (Linux's `sync_file_range` with
/// `SYNC_FILE_RANGE_WRITE`, which Swift's Glibc module does not declare). A hint: nothing
/// is durable until a sync. Returns 0, or -1 with `errno` set; 0 where there is no such call.
int mr_start_writeback(int descriptor, int64_t offset, int64_t count);

#endif
