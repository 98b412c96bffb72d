package dev.idem.engine.sort;

import dev.idem.core.ByteSize;
import dev.idem.engine.JobException;
import dev.idem.engine.output.ScratchDirectory;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * A job's private directory of sorted runs under {@code --tmp}, and its life cycle: removed when
 * the job ends (success or failure), by a shutdown hook on Ctrl-C or SIGTERM, and, after a SIGKILL
 * or a power cut, by the next job that uses the same {@code --tmp} (a {@link ScratchDirectory}).
 *
 * <p>Runs are compressed and written by one background thread of the directory's, so that
 * compression overlaps the sorting and merging that produce the entries.
 *
 * <p>A resumable job's runs live in its state directory instead ({@link #inState}): there each
 * finished run is synced to disk, a run merged away is deleted only once a checkpoint no longer
 * names it ({@link #deleteMerged}), and the directory stays when the job stops.
 */
final class RunDirectory implements AutoCloseable {

  static final String PREFIX = "idem-sort-dedup-";

  private final Path dir;
  private final boolean inState; // a resumable job's runs: kept, synced, deleted after checkpoints
  private final ScratchDirectory scratch; // null in a state directory
  private final Thread hook; // null in a state directory
  private final java.util.List<RunFile> merged = new java.util.ArrayList<>();
  private final ExecutorService writer =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "idem-run-writer");
            t.setDaemon(true);
            return t;
          });
  private final boolean compress;
  private volatile boolean closed;
  private int nextRun;
  private long currentBytes;
  private long peakBytes;
  private long writtenBytes;

  private RunDirectory(ScratchDirectory scratch, boolean compress) {
    this(scratch.path(), scratch, compress);
  }

  private RunDirectory(Path dir, ScratchDirectory scratch, boolean compress) {
    this.dir = dir;
    this.compress = compress;
    this.scratch = scratch;
    this.inState = scratch == null;
    if (!inState) {
      this.hook = new Thread(this::deleteRuns, "idem-sort-dedup-cleanup");
      Runtime.getRuntime().addShutdownHook(hook);
    } else {
      this.hook = null;
    }
  }

  /**
   * The runs of a resumable job, in {@code dir} (created if missing). Every run the checkpoint
   * names must be there, whole: one missing or cut short is refused, since its records are nowhere
   * else. Runs it does not name (left by a run or merge that a kill interrupted) are deleted, and
   * new runs are numbered after every run named or found, so that no new run takes a named one's
   * name.
   *
   * @throws JobException naming the run that is missing or damaged
   */
  static RunDirectory inState(Path dir, java.util.List<RunFile> named, boolean compress)
      throws IOException {
    Files.createDirectories(dir);
    RunDirectory d = new RunDirectory(dir, null, compress);
    java.util.Set<Path> keep = new java.util.HashSet<>();
    for (RunFile r : named) {
      long size = Files.exists(r.path()) ? Files.size(r.path()) : -1;
      if (size != r.bytes()) {
        throw new JobException(
            r.path()
                + (size < 0 ? " is missing" : " holds " + size + " bytes, not " + r.bytes())
                + ": the last checkpoint names this sorted run, and its records are nowhere "
                + "else. The state was damaged; start over with a new --state directory");
      }
      keep.add(r.path());
      d.nextRun = Math.max(d.nextRun, runNumber(r.path()));
      d.currentBytes += size;
    }
    try (DirectoryStream<Path> runs = Files.newDirectoryStream(dir, "run-*")) {
      for (Path run : runs) {
        d.nextRun = Math.max(d.nextRun, runNumber(run));
        if (!keep.contains(run)) {
          Files.delete(run);
        }
      }
    }
    return d;
  }

  private static int runNumber(Path run) {
    try {
      return Integer.parseInt(run.getFileName().toString().substring(4));
    } catch (NumberFormatException e) {
      return 0; // not one of ours; deleted or ignored
    }
  }

  /**
   * Removes what killed jobs left in {@code tmp}, then creates and locks a new private directory
   * there.
   *
   * @param warnings told about each leftover removed
   * @throws IOException naming {@code --tmp} when it is missing or not writable
   */
  static RunDirectory create(Path tmp, Consumer<String> warnings) throws IOException {
    return create(tmp, warnings, true);
  }

  /** As {@link #create(Path, Consumer)}, with runs LZ4-compressed or not. */
  static RunDirectory create(Path tmp, Consumer<String> warnings, boolean compress)
      throws IOException {
    return new RunDirectory(
        ScratchDirectory.create(tmp, PREFIX, "sorted runs", "a sort-dedup", warnings), compress);
  }

  /**
   * Fails, naming {@code where} the runs go ({@code "--tmp DIR"}, the state directory), when {@code
   * needed} bytes are clearly more than {@code usable}.
   */
  static void checkSpace(String where, long needed, long usable) throws IOException {
    if (needed > usable) {
      throw new IOException(
          where
              + " has "
              + ByteSize.format(usable)
              + " free, but "
              + "sort-dedup needs about "
              + ByteSize.format(needed)
              + " there for its sorted runs "
              + "(about the input's size plus 24 bytes a record): free some space there, or put it on a "
              + "larger disk");
    }
  }

  Path path() {
    return dir;
  }

  /** A writer for a new run in this directory. */
  RunWriter newRun(RunKind kind, int blockBytes) throws IOException {
    if (closed) {
      throw new IOException("sort-dedup is stopping; no new runs");
    }
    return new RunWriter(
        dir.resolve(String.format("run-%06d", ++nextRun)), kind, blockBytes, writer, compress);
  }

  /** Accounts for a run just finished; in a state directory, syncs it to disk first. */
  RunFile finished(RunFile run) throws IOException {
    if (inState) {
      try (FileChannel ch = FileChannel.open(run.path(), StandardOpenOption.READ)) {
        ch.force(true);
      }
    }
    currentBytes += run.bytes();
    writtenBytes += run.bytes();
    peakBytes = Math.max(peakBytes, currentBytes);
    return run;
  }

  /**
   * Deletes a run that was merged into another or written out; in a state directory, only at the
   * next {@link #deleteMerged}, when the checkpoint that no longer names it has been written.
   */
  void delete(RunFile run) throws IOException {
    if (inState) {
      merged.add(run);
      return;
    }
    Files.deleteIfExists(run.path());
    currentBytes -= run.bytes();
  }

  /** Deletes the runs merged away before the checkpoint just written. */
  void deleteMerged() throws IOException {
    for (RunFile run : merged) {
      Files.deleteIfExists(run.path());
      currentBytes -= run.bytes();
    }
    merged.clear();
  }

  /** Bytes of runs written over the job. */
  long writtenBytes() {
    return writtenBytes;
  }

  /** The most bytes of finished runs on disk at once. */
  long peakBytes() {
    return peakBytes;
  }

  private void deleteRuns() {
    closed = true;
    // the job's threads run on while the JVM shuts down: a run they created just before
    // 'closed' may appear after a pass and keep the directory, so try again for a while
    for (int attempt = 0; attempt < 50 && Files.exists(dir); attempt++) {
      ScratchDirectory.deleteTree(dir);
      if (Files.exists(dir)) {
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /**
   * Removes the directory and everything in it, and releases the lock; a state directory's runs
   * stay for the resume.
   */
  @Override
  public void close() {
    writer.shutdownNow(); // writers wait for their block in flight before they close
    if (inState) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // shutting down: the hook runs anyway
    }
    deleteRuns();
    scratch.delete(); // releases the lock
  }
}
