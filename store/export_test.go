package store

// RunLockFile is runLockFile for the external tests, which may import observer.
const RunLockFile = runLockFile
