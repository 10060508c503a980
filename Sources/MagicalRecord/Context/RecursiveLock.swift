#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock its holder may take again (a context's: its calls nest), on a recursive pthread
/// mutex. Foundation's `NSRecursiveLock` on Linux goes through `NSCondition` and an open
/// class's calls: a point get, which takes a context's lock three times, spent about 240
/// more instructions there (a fortieth of the get).
final class RecursiveLock: @unchecked Sendable {
    /// Allocated apart: a pthread mutex must not move once it is initialised.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        let status = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() {
        pthread_mutex_lock(mutex)
    }

    func unlock() {
        pthread_mutex_unlock(mutex)
    }

    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
