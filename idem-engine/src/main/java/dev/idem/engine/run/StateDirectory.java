package dev.idem.engine.run;

import dev.idem.engine.JobException;
import dev.idem.engine.store.DirectoryLock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A job's state directory: the file that makes it that job's state (a dedup job's {@code
 * MANIFEST.json}, a sort-dedup's {@code SORT-DEDUP.json}, ...), what the job keeps beside it (a
 * dedup job's {@code store/} and snapshots, sorted runs) and {@code LOCK}, which one process holds
 * while it runs the job. The lock is an operating-system file lock, so it dies with its process,
 * even after {@code kill -9}.
 */
public final class StateDirectory implements AutoCloseable {

  private static final Pattern SNAPSHOT = Pattern.compile("(filter|exact|delta)-(\\d+)\\.snap");

  private final Path dir;
  private final DirectoryLock lock;

  private StateDirectory(Path dir, DirectoryLock lock) {
    this.dir = dir;
    this.lock = lock;
  }

  /**
   * Opens (creating) {@code dir}, a state identified by the file {@code identity}, and takes its
   * lock. A directory that exists without that file must hold nothing but what a crash before it
   * was written can leave (the lock, the identity's temporary file, a new {@code store/}), and is
   * refused before anything is written to it.
   *
   * @throws JobException when {@code dir} is someone else's, or another process holds the lock
   */
  public static StateDirectory open(Path dir, String identity) throws IOException {
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new IOException(dir + ": --state must be a directory, and this is a file");
    }
    if (Files.isDirectory(dir) && !Files.exists(dir.resolve(identity))) {
      try (var files = Files.list(dir)) {
        List<String> other =
            files
                .map(f -> f.getFileName().toString())
                .filter(
                    n ->
                        !n.equals(DirectoryLock.FILE)
                            && !n.equals(identity + ".tmp")
                            && !n.equals("store"))
                .sorted()
                .toList();
        if (!other.isEmpty()) {
          throw new JobException(
              dir
                  + " is not empty and has no "
                  + identity
                  + ", so it is "
                  + "not an idem state directory (it holds "
                  + String.join(", ", other.subList(0, Math.min(3, other.size())))
                  + (other.size() > 3 ? ", ..." : "")
                  + "); give "
                  + "an empty or new directory");
        }
      }
    }
    Files.createDirectories(dir);
    DirectoryLock lock = DirectoryLock.tryAcquire(dir);
    if (lock == null) {
      String holder = DirectoryLock.holder(dir);
      throw new JobException(
          dir
              + " is in use by another idem process"
              + (holder.isEmpty() ? "" : " (" + holder + ")")
              + "; one job per state directory: wait for it, or use another --state");
    }
    return new StateDirectory(dir, lock);
  }

  public Path path() {
    return dir;
  }

  public Path storeDirectory() {
    return dir.resolve("store");
  }

  public Path snapshot(long sequence) {
    return dir.resolve("filter-" + sequence + ".snap");
  }

  /** The exact set's snapshot of checkpoint {@code sequence} (memory exact tier, fingerprints). */
  public Path exactSnapshot(long sequence) {
    return dir.resolve("exact-" + sequence + ".snap");
  }

  /**
   * The delta snapshot of checkpoint {@code sequence}: the keys an exact set alone kept since its
   * last full snapshot.
   */
  public Path deltaSnapshot(long sequence) {
    return dir.resolve("delta-" + sequence + ".snap");
  }

  /** Replaces file {@code name} in the directory all at once: temp file, fsync, rename. */
  public void writeAtomically(String name, byte[] content) throws IOException {
    writeAtomically(dir, name, content);
  }

  /**
   * Replaces file {@code name} in {@code dir} all at once: a temporary file, fsync, rename, then
   * fsync of the directory; errors name the file.
   */
  public static void writeAtomically(Path dir, String name, byte[] content) throws IOException {
    try {
      replace(dir, name, content);
    } catch (IOException e) {
      throw new IOException(dir.resolve(name) + ": cannot write: " + e.getMessage(), e);
    }
  }

  private static void replace(Path dir, String name, byte[] content) throws IOException {
    Path tmp = dir.resolve(name + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer b = ByteBuffer.wrap(content);
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
    try {
      Files.move(
          tmp,
          dir.resolve(name),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException(dir + ": cannot rename atomically in this directory", e);
    }
    syncDirectory(dir);
  }

  /**
   * Deletes every filter and exact-set snapshot but those of checkpoint {@code keep} (and temporary
   * files a crash left behind).
   */
  public void deleteSnapshotsExcept(long keep) throws IOException {
    deleteSnapshotsExcept(keep, 0);
  }

  /**
   * The checkpoints of the delta snapshots on disk after checkpoint {@code after} up to {@code
   * upTo}, oldest first: the delta levels of a full snapshot at {@code after} whose newest delta a
   * checkpoint names.
   */
  public List<Long> deltaSequences(long after, long upTo) throws IOException {
    List<Long> found = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "delta-*.snap")) {
      for (Path p : ds) {
        Matcher m = SNAPSHOT.matcher(p.getFileName().toString());
        if (m.matches()) {
          long c = Long.parseLong(m.group(2));
          if (c > after && c <= upTo) {
            found.add(c);
          }
        }
      }
    }
    Collections.sort(found);
    return found;
  }

  /**
   * Deletes every snapshot but the filter and exact-set snapshots of checkpoint {@code keep} and
   * the delta snapshots after it up to checkpoint {@code keepDelta} (0: none), and temporary files
   * a crash left.
   */
  public void deleteSnapshotsExcept(long keep, long keepDelta) throws IOException {
    try (DirectoryStream<Path> ds =
        Files.newDirectoryStream(
            dir,
            "{filter-*.snap,exact-*.snap,delta-*.snap,.filter-*.tmp,.exact-*.tmp,.delta-*.tmp}")) {
      for (Path p : ds) {
        Matcher m = SNAPSHOT.matcher(p.getFileName().toString());
        long c = m.matches() ? Long.parseLong(m.group(2)) : -1;
        boolean kept =
            m.matches() && (m.group(1).equals("delta") ? c > keep && c <= keepDelta : c == keep);
        if (!kept) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static void syncDirectory(Path dir) {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // some file systems cannot sync a directory; renames stay atomic
    }
  }

  @Override
  public void close() throws IOException {
    lock.close();
  }
}
