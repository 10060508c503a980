// The prefetch hints are inline functions in include/prefetch.h; SwiftPM builds a C target
// only from a source file, which this is.
#include "prefetch.h"
