package dev.idem.engine.output;

import dev.idem.core.ByteSize;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A job's private directory under {@code --tmp}, and how what a killed job left there is found: the
 * owner holds an OS lock on the directory's {@code LOCK} file for its whole life, and the kernel
 * drops the lock when the process dies, however it dies. The owner writes its pid into {@code LOCK}
 * after locking it, so an empty {@code LOCK} means an owner between creating and locking it, which
 * is left alone. Each {@link #create} first removes the unlocked directories with its prefix.
 */
public final class ScratchDirectory {

  private static final String LOCK = "LOCK";

  private final Path dir;
  private final FileChannel lock;

  private ScratchDirectory(Path dir, FileChannel lock) {
    this.dir = dir;
    this.lock = lock;
  }

  /**
   * Removes what killed jobs left in {@code tmp} under {@code prefix}, then creates and locks a new
   * directory there.
   *
   * @param what what the directory holds, for the warnings ({@code "sorted runs"})
   * @param owner the kind of job, for the warnings ({@code "a sort-dedup"})
   * @param warnings told about each leftover removed
   * @throws IOException naming {@code --tmp} when it is missing or not writable
   */
  public static ScratchDirectory create(
      Path tmp, String prefix, String what, String owner, Consumer<String> warnings)
      throws IOException {
    if (!Files.isDirectory(tmp)) {
      throw new IOException("--tmp " + tmp + ": no such directory");
    }
    removeLeftovers(tmp, prefix, what, owner, warnings);
    Path dir;
    try {
      dir = Files.createTempDirectory(tmp, prefix);
    } catch (IOException e) {
      throw new IOException(
          "--tmp " + tmp + ": cannot create a directory there (" + e.getMessage() + ")", e);
    }
    FileChannel ch =
        FileChannel.open(
            dir.resolve(LOCK), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try {
      ch.lock(); // held until the channel closes, or the process dies
      ch.write(
          ByteBuffer.wrap(
              (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)));
      return new ScratchDirectory(dir, ch);
    } catch (IOException | RuntimeException e) {
      ch.close();
      deleteTree(dir);
      throw e;
    }
  }

  public Path path() {
    return dir;
  }

  /** Deletes the directory with everything in it (best effort), then releases the lock. */
  public void delete() {
    deleteTree(dir);
    try {
      lock.close();
    } catch (IOException e) {
      // the lock goes with the process anyway
    }
  }

  private static void removeLeftovers(
      Path tmp, String prefix, String what, String owner, Consumer<String> warnings) {
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tmp, prefix + "*")) {
      for (Path d : dirs) {
        if (Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
          removeIfAbandoned(d, what, owner, warnings);
        }
      }
    } catch (IOException e) {
      // listing --tmp failed: creating our own directory will say why, if it matters
    }
  }

  private static void removeIfAbandoned(
      Path d, String what, String owner, Consumer<String> warnings) {
    try (FileChannel ch = FileChannel.open(d.resolve(LOCK), StandardOpenOption.WRITE)) {
      FileLock held;
      try {
        held = ch.tryLock();
      } catch (OverlappingFileLockException e) {
        return; // a job in this JVM owns it
      }
      if (held == null || ch.size() == 0) {
        return; // alive, or being created
      }
      long bytes = deleteTree(d);
      warnings.accept(
          "removed "
              + ByteSize.format(bytes)
              + " of "
              + what
              + " left in "
              + d
              + " by "
              + owner
              + " that did not finish (killed?)");
    } catch (IOException e) {
      // no LOCK (not ours, or being created), or another user's: leave it
    }
  }

  /** Deletes a directory tree, best effort; returns the bytes of the files removed. */
  public static long deleteTree(Path d) {
    long bytes = 0;
    try (Stream<Path> walk = Files.walk(d)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        try {
          bytes += Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) ? Files.size(p) : 0;
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // best effort: what is left is retried by the next job
        }
      }
    } catch (IOException | UncheckedIOException e) {
      // gone already, or a file went while listing (a merge deleting its inputs): the callers
      // that must see the directory gone try again
    }
    return bytes;
  }
}
