package dev.idem.engine.output;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Forces an output file to disk on a background thread every {@value #BYTES} bytes written, so that
 * a checkpoint's own sync finds little left to write and the job waits for the disk less. Only an
 * optimisation: a checkpoint still syncs everything itself. A failure is kept and thrown by every
 * later {@link #await}, since Linux reports a failed write-back only once and a later sync would
 * succeed over the lost bytes.
 */
final class SyncAhead {

  /** Bytes written between two background syncs. */
  static final long BYTES = 8L << 20;

  /** One thread for all files, a sync at a time each. */
  private static final ExecutorService SYNCS =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "idem-sync-ahead");
            t.setDaemon(true);
            return t;
          });

  private final FileChannel channel;
  private final String name;

  /** The background sync running or last run, or {@code null}. */
  private volatile Future<?> running;

  private volatile IOException failure;
  private long from;

  SyncAhead(FileChannel channel, String name) {
    this.channel = channel;
    this.name = name;
  }

  /**
   * Starts a sync when {@link #BYTES} were written since the last start ({@code length} is the
   * file's length now) and none is running.
   */
  void maybeStart(long length) {
    if (length - from < BYTES || (running != null && !running.isDone())) {
      return;
    }
    from = length;
    if (failure != null) {
      return; // the next await throws it
    }
    running =
        SYNCS.submit(
            () -> {
              try {
                channel.force(false); // what the writer still buffers is not written yet
              } catch (IOException e) {
                failure = new IOException(name + ": sync to disk failed: " + e.getMessage(), e);
              }
            });
  }

  /** Waits for the sync running, if any, and throws the failure, if one ever failed. */
  void await() throws IOException {
    settle();
    if (failure != null) {
      throw failure;
    }
  }

  /** Waits for the sync running, if any, whatever it does: before the channel closes. */
  void settle() {
    Future<?> f = running;
    if (f == null) {
      return;
    }
    try {
      f.get();
    } catch (ExecutionException | InterruptedException | CancellationException e) {
      // its failure is kept in 'failure'; an interrupted wait leaves the rest to close
    }
  }
}
