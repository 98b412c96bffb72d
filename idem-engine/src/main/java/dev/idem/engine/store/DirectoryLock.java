package dev.idem.engine.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One process's claim on a state directory: an operating-system lock on {@code DIR/LOCK}, which
 * holds the owner's process id for the message a second opener gets. The lock dies with its
 * process, even after {@code kill -9}, so a crash never leaves a directory locked.
 */
public final class DirectoryLock implements AutoCloseable {

  /** The lock file's name. */
  public static final String FILE = "LOCK";

  private final FileChannel channel;
  private final FileLock lock;

  private DirectoryLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the lock of {@code dir}, which must exist.
   *
   * @return the lock, or {@code null} when another process (or this one) holds it; {@link #holder}
   *     says who
   */
  public static DirectoryLock tryAcquire(Path dir) throws IOException {
    FileChannel ch =
        FileChannel.open(
            dir.resolve(FILE),
            StandardOpenOption.CREATE,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // this process holds it already
    }
    if (lock == null) {
      ch.close();
      return null;
    }
    try {
      ch.truncate(0);
      ch.write(
          ByteBuffer.wrap(
              ("pid " + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8)),
          0);
      ch.force(false);
    } catch (IOException e) {
      ch.close(); // and the lock with it
      throw new IOException(dir.resolve(FILE) + ": cannot write: " + e.getMessage(), e);
    }
    return new DirectoryLock(ch, lock);
  }

  /** Who holds the lock of {@code dir}, as its lock file says ({@code "pid 1234"}), or "". */
  public static String holder(Path dir) {
    try {
      return new String(Files.readAllBytes(dir.resolve(FILE)), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close(); // closing releases the lock too, if release failed
    }
  }
}
