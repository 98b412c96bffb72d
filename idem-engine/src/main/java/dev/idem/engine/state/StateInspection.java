package dev.idem.engine.state;

import dev.idem.engine.JobException;
import dev.idem.engine.KeyMode;
import dev.idem.engine.run.Json;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A look into a state directory without disturbing it (RocksDB opened read-only, the lock only
 * tested): the job's manifest, its last checkpoint, its files and whether a process runs it.
 *
 * @param manifest the job's identity
 * @param checkpoint the last checkpoint ({@link Checkpoint#START} if none yet)
 * @param runningBy who holds the lock ("pid 1234"), or {@code null} when no process runs it
 * @param snapshots filter snapshot files and their sizes
 * @param storeBytes bytes of RocksDB's live table files
 * @param estimatedKeys RocksDB's estimate of the keys in {@code seen}
 */
public record StateInspection(
    Manifest manifest,
    Checkpoint checkpoint,
    String runningBy,
    List<String> snapshots,
    long storeBytes,
    long estimatedKeys) {

  /**
   * Inspects {@code state}.
   *
   * @throws JobException when it is not a state directory
   */
  public static StateInspection of(Path state) throws IOException {
    Path manifestFile = state.resolve("MANIFEST.json");
    if (!Files.isRegularFile(manifestFile)) {
      throw new JobException(state + ": not an idem state directory (no MANIFEST.json)");
    }
    Manifest m = Json.read(Files.readAllBytes(manifestFile), Manifest.class);
    String running = lockHolder(state.resolve("LOCK"));
    Checkpoint cp = Checkpoint.START;
    long storeBytes = 0;
    long keys = 0;
    Path storeDir = state.resolve("store");
    if (Files.isDirectory(storeDir)) {
      try (StateStore store = StateStore.openReadOnly(storeDir, m.keyMode() == KeyMode.FULL_KEY)) {
        byte[] saved = store.meta("checkpoint");
        if (saved != null) {
          cp = Json.read(saved, Checkpoint.class);
        }
        storeBytes = store.liveFileBytes();
        keys = store.estimatedSeenKeys();
      }
    }
    List<String> snapshots = new ArrayList<>();
    try (var files = Files.list(state)) {
      for (Path p : files.sorted().toList()) {
        String n = p.getFileName().toString();
        if ((n.startsWith("filter-") || n.startsWith("exact-")) && n.endsWith(".snap")) {
          snapshots.add(n + " (" + Files.size(p) + " bytes)");
        }
      }
    }
    return new StateInspection(m, cp, running, snapshots, storeBytes, keys);
  }

  private static String lockHolder(Path lockFile) throws IOException {
    if (!Files.exists(lockFile)) {
      return null;
    }
    try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
      FileLock lock = ch.tryLock();
      if (lock != null) {
        lock.release();
        return null;
      }
    } catch (OverlappingFileLockException e) {
      // held in this very process
    }
    return new String(Files.readAllBytes(lockFile), StandardCharsets.UTF_8).strip();
  }
}
