import MagicalStore

/// Runs engine code, turning its errors into ``MagicalRecordError``.
func withStoreErrors<T>(_ body: () throws -> T) throws(MagicalRecordError) -> T {
    do {
        return try body()
    } catch let error as MagicalRecordError {
        throw error
    } catch let error as StoreError {
        throw .store(error)
    } catch let error as ModelError {
        throw .model(error)
    } catch {
        throw .damagedMetadata("\(error)")
    }
}
