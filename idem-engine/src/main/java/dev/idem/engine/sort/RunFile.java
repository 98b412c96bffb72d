package dev.idem.engine.sort;

import java.nio.file.Path;

/**
 * A finished run on disk.
 *
 * @param path the file, inside the job's private directory
 * @param kind what it holds and how it is sorted
 * @param entries entries in it
 * @param bytes its size on disk
 */
record RunFile(Path path, RunKind kind, long entries, long bytes) {}
