package dev.idem.engine.output;

import dev.idem.engine.JobException;
import dev.idem.engine.input.Compression;
import dev.idem.engine.records.RecordBatch;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * An output of a job: buffered writes, a length that counts what was accepted (buffered or not),
 * and {@link #sync()} for checkpoints. Opened at a checkpoint's length, it cuts off whatever a
 * crash left after it; it refuses a file that someone else changed since the checkpoint: one
 * shorter than that length, or whose bytes just before it are not the ones the job wrote (the
 * checkpoint keeps their {@link #tailChecksum()}).
 *
 * <p>A file whose name ends in {@code .gz} or {@code .zst} is written compressed ({@link
 * Compression}), as independent frames: {@link #flush()} ends the current one, so every length a
 * checkpoint records is the end of a frame, and a file cut back to it decompresses whole, and
 * appended to, decompresses as one stream.
 *
 * <p>A file output is held under an exclusive lock from open to close, so two jobs never write one
 * file at once; the lock is the operating system's, so it dies with its process.
 *
 * <p>Why it is long: one file opened four ways (new, cut back to a checkpoint, appended to, a
 * stream), compressed by its name or not, with its lock, its tail checksum and syncing ahead;
 * cutting back must agree byte for byte with how the file was written, so both stay here.
 */
public final class OutputFile implements AutoCloseable {

  /** How many bytes before a checkpoint's length {@link #tailChecksum()} covers. */
  static final int TAIL_BYTES = 64 * 1024;

  private final String name;
  private final FileChannel channel;
  private final OutputStream stream;
  private final ByteBuffer buffer = ByteBuffer.allocate(1 << 16);

  /** Bytes accepted so far: those in the file and, for a plain file, those buffered too. */
  private long length;

  private final Compression compression;

  /** Whether {@link #close()} closes {@link #stream}: one this class opened, not stdout. */
  private final boolean ownsStream;

  /** The frame being written, or {@code null} between frames. */
  private OutputStream frame;

  /** A file's background syncs; {@code null} for a stream. */
  private final SyncAhead ahead;

  /**
   * A new job's output that held bytes of before: emptied at the first write or flush, not when
   * opened, so that a job that fails before writing anything leaves the file as it was.
   */
  private boolean emptyPending;

  /** Whether opening this output created its file. */
  private boolean created;

  private boolean closed;

  private OutputFile(
      String name,
      FileChannel channel,
      OutputStream stream,
      long length,
      Compression compression,
      boolean ownsStream) {
    this.name = name;
    this.ownsStream = ownsStream;
    this.channel = channel;
    this.stream = stream;
    this.length = length;
    this.compression = compression;
    this.ahead = channel == null ? null : new SyncAhead(channel, name);
  }

  /**
   * Opens {@code path} for a job resumed at {@code checkpointLength} bytes (0 for a new job, which
   * creates or empties the file), after checking that the bytes before that length still end as the
   * checkpoint saw them ({@code tailChecksum}; {@code null} when it did not record one). Its name
   * says whether it is compressed ({@link Compression#of}).
   *
   * @throws JobException naming the file when another process is writing it
   * @throws IOException naming the file when it was changed since the checkpoint
   */
  public static OutputFile open(Path path, long checkpointLength, Long tailChecksum)
      throws IOException {
    requireDirectory(path);
    Compression named = Compression.of(path.toString());
    if (named == Compression.XZ || named == Compression.BZIP2) {
      throw new IOException(
          path
              + ": idem writes compressed outputs as .zst or .gz, not "
              + named.suffix()
              + ": name it so");
    }
    if (Files.exists(path) && !Files.isRegularFile(path) && !Files.isDirectory(path)) {
      return openStream(path, checkpointLength, named);
    }
    boolean existed = Files.exists(path);
    FileChannel ch =
        FileChannel.open(
            path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
    boolean emptyLater = false;
    try {
      if (Files.isRegularFile(path)) { // devices (/dev/null) have any number of writers
        lock(path, ch); // before anything is cut: the file may be another job's output
      }
      long size = ch.size();
      if (size < checkpointLength) {
        throw new IOException(
            path
                + " is "
                + size
                + " bytes, shorter than the "
                + checkpointLength
                + " bytes of the last checkpoint: it was changed outside this job; restore it, "
                + "or start the job over with a new state");
      }
      if (tailChecksum != null && tailChecksum(ch, checkpointLength) != tailChecksum) {
        throw new IOException(
            path
                + " changed since the last checkpoint: its bytes before "
                + "offset "
                + checkpointLength
                + " are not the ones this job wrote (another job or a "
                + "person wrote it since); resuming would cut their data. Restore the file, or start "
                + "the job over with another output and a new state");
      }
      if (checkpointLength == 0 && tailChecksum == null && size > 0) {
        emptyLater = true; // a new job: emptied when it first writes, not before
      } else {
        ch.truncate(checkpointLength);
        ch.position(checkpointLength);
      }
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    OutputFile f = new OutputFile(path.toString(), ch, null, checkpointLength, named, false);
    f.emptyPending = emptyLater;
    f.created = !existed;
    return f;
  }

  /**
   * A FIFO, a terminal, {@code /dev/stdout} on a pipe: written in order, never cut back or locked.
   * Only {@code /dev/null} may be resumed, as it has nothing to cut back.
   */
  private static OutputFile openStream(Path path, long checkpointLength, Compression compression)
      throws IOException {
    if (checkpointLength > 0 && !canCutBack(path)) {
      throw new IOException(
          path
              + " is not a regular file: a resumed job cannot cut it back to its last "
              + "checkpoint; start the job over, or write to a file");
    }
    OutputStream out;
    try {
      out = Files.newOutputStream(path, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new IOException(path + ": cannot write: " + e.getMessage(), e);
    }
    return new OutputFile(path.toString(), null, out, checkpointLength, compression, true);
  }

  /**
   * Whether a resumed job can cut {@code path} back to a checkpoint: a regular file, one still to
   * be created, or {@code /dev/null}; not a pipe, a FIFO or a terminal.
   */
  public static boolean canCutBack(Path path) {
    if (!Files.exists(path) || Files.isRegularFile(path)) {
      return true;
    }
    try {
      return path.toRealPath().equals(Path.of("/dev/null"));
    } catch (IOException e) {
      return false;
    }
  }

  /** Opens {@code path} for a new job: creates or empties it. */
  public static OutputFile open(Path path) throws IOException {
    return open(path, 0, null);
  }

  /**
   * Where an output stood at a checkpoint: its length and the CRC32C of the bytes before it ({@link
   * #tailChecksum}), which a resume checks before it cuts the file back there.
   *
   * @param tail {@code null} for a stream, and in states written before idem recorded it
   */
  public record Mark(long length, Long tail) {
    /** An output with nothing written. */
    public static final Mark EMPTY = new Mark(0, null);
  }

  /** Opens {@code path} for a job resumed at {@code mark} ({@link Mark#EMPTY}: a new job). */
  public static OutputFile open(Path path, Mark mark) throws IOException {
    return open(path, mark.length(), mark.tail());
  }

  /**
   * Syncs the output ({@link #sync}) and says where it stands, for a checkpoint to record: a resume
   * cuts it back there ({@link #open(Path, Mark)}).
   */
  public Mark mark() throws IOException {
    sync();
    return new Mark(length, tailChecksum());
  }

  private static void lock(Path path, FileChannel ch) throws IOException {
    FileLock lock;
    try {
      lock = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      throw new JobException(
          path + " is already an output of this process: give each output " + "its own file");
    }
    if (lock == null) {
      String holder = LockHolder.of(path);
      throw new JobException(
          path
              + " is being written by another process"
              + (holder == null ? "" : " (" + holder + ")")
              + ": one writer per file; wait for it "
              + "to finish, or write to another file");
    }
  }

  /**
   * Fails, naming the file, when the directory {@code path} would go in does not exist: jobs that
   * open their output late check this first.
   */
  public static void requireDirectory(Path path) throws IOException {
    Path dir = path.toAbsolutePath().getParent();
    if (!Files.isDirectory(dir)) {
      throw new IOException(path + ": cannot write: directory " + dir + " does not exist");
    }
  }

  /** Standard output (or any stream): no truncation, and sync only flushes. */
  public static OutputFile stream(String name, OutputStream out) {
    return new OutputFile(name, null, out, 0, Compression.NONE, false);
  }

  public void write(byte[] b, int off, int len) throws IOException {
    if (len > buffer.remaining()) {
      drain();
      if (len > buffer.capacity()) {
        accepted(len);
        emit(ByteBuffer.wrap(b, off, len));
        return;
      }
    }
    buffer.put(b, off, len);
    accepted(len);
  }

  public void write(byte b) throws IOException {
    if (!buffer.hasRemaining()) {
      drain();
    }
    buffer.put(b);
    accepted(1);
  }

  private void accepted(int bytes) {
    if (!compression.isCompressed()) {
      length += bytes;
    }
  }

  /**
   * Writes record {@code i} of {@code batch} as read; the last line of an input without a line
   * break gets one, so that records stay lines.
   */
  public void writeRecord(RecordBatch batch, int i) throws IOException {
    int terminator = batch.terminatorLength[i];
    write(batch.arena, batch.start[i], batch.contentLength[i] + terminator);
    if (terminator == 0) {
      write((byte) '\n');
    }
  }

  /**
   * Writes record {@code i} of a batch, as read, to this file of bad records. A record too long for
   * the batch to have kept is not there to write: it is counted as bad all the same, and the
   * warning that says so comes back (null when the record was written).
   *
   * @param file the input the record came from, for the warning
   */
  public String quarantine(RecordBatch batch, int i, String file) throws IOException {
    if (batch.tooLongToKeep(i)) {
      return file
          + ":"
          + batch.line[i]
          + ": "
          + batch.problem[i]
          + "; too long to quarantine, counted as bad";
    }
    writeRecord(batch, i);
    return null;
  }

  /**
   * How a checkpoint or identity names an output: its absolute path, its directory as it really is
   * (links resolved), so that another spelling of the same file is the same output; null for none.
   */
  public static String absolute(Path p) {
    if (p == null) {
      return null;
    }
    Path abs = p.toAbsolutePath().normalize();
    Path parent = abs.getParent();
    try {
      // the directory as it really is: one output reached through a link or by another spelling
      return parent == null
          ? abs.toString()
          : parent.toRealPath().resolve(abs.getFileName()).toString();
    } catch (IOException e) {
      return abs.toString(); // the directory does not exist (yet): as spelled, made absolute
    }
  }

  /**
   * The file's length once {@link #flush()}ed: for a plain file, the bytes accepted so far; for a
   * compressed one, the compressed bytes written so far (exact after a flush, which ends a frame).
   */
  public long length() {
    return length;
  }

  String name() {
    return name;
  }

  /**
   * Writes out what is buffered; for a compressed file, also ends the frame, so that the file up to
   * {@link #length()} decompresses whole.
   */
  public void flush() throws IOException {
    if (channel != null) {
      emptyIfPending(); // an output flushed empty is empty
    }
    drain();
    if (frame != null) {
      OutputStream f = frame;
      frame = null;
      f.close(); // the sink names the file in what it throws
    }
    if (stream != null) {
      stream.flush();
    }
  }

  /** Writes out what is buffered, into the current frame for a compressed file. */
  private void drain() throws IOException {
    buffer.flip();
    emit(buffer);
    buffer.clear();
  }

  private void emit(ByteBuffer b) throws IOException {
    if (!b.hasRemaining()) {
      return; // not even a frame: a frame per flush would move the length a checkpoint just took
    }
    if (!compression.isCompressed()) {
      writeDirect(b);
      return;
    }
    if (frame == null) {
      frame = compression.frame(new FileSink());
    }
    frame.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
    b.position(b.limit());
  }

  /** Where a frame's compressed bytes go: the file, counted in {@link #length}. */
  private final class FileSink extends OutputStream {
    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      writeDirect(ByteBuffer.wrap(b, off, len));
      length += len;
    }
  }

  /** Empties a new job's output of the bytes it held before, once, before anything else. */
  private void emptyIfPending() throws IOException {
    if (emptyPending) {
      emptyPending = false;
      try {
        channel.truncate(0);
        channel.position(0);
      } catch (IOException e) {
        throw failed("emptying", e);
      }
    }
  }

  /**
   * Closes an output a job is giving up before it wrote anything to it, leaving the file as it was
   * before the job: a file the job created is deleted, one it found keeps its bytes. An output
   * written to is closed as {@link #close} does.
   */
  public void abandonUnwritten() throws IOException {
    if (channel == null || closed || length > 0 || buffer.position() > 0 || frame != null) {
      close();
      return;
    }
    if (!emptyPending && !created) {
      close(); // a file that was empty before, and is still
      return;
    }
    closed = true;
    if (ahead != null) {
      ahead.settle();
    }
    channel.close();
    if (created) {
      Files.deleteIfExists(Path.of(name));
    }
  }

  private void writeDirect(ByteBuffer b) throws IOException {
    emptyIfPending();
    try {
      if (channel != null) {
        while (b.hasRemaining()) {
          channel.write(b);
        }
      } else {
        stream.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
        b.position(b.limit());
      }
    } catch (IOException e) {
      throw failed("write", e);
    }
  }

  /** An I/O error that names the file (a full disk does not say which file it filled). */
  private IOException failed(String doing, IOException e) {
    return new IOException(name + ": " + doing + " failed: " + e.getMessage(), e);
  }

  /**
   * The CRC32C of the last {@link #TAIL_BYTES} bytes written (all of them when fewer), for a
   * checkpoint to record: a resumed job checks it to tell its own output from a file that another
   * job has since rewritten. Flushes first. {@code null} for a stream.
   */
  public Long tailChecksum() throws IOException {
    if (channel == null) {
      return null;
    }
    flush();
    return tailChecksum(channel, length);
  }

  private static long tailChecksum(FileChannel ch, long end) throws IOException {
    long from = Math.max(0, end - TAIL_BYTES);
    ByteBuffer tail = ByteBuffer.allocate((int) (end - from));
    while (tail.hasRemaining() && ch.read(tail, from + tail.position()) >= 0) {
      // positional reads leave the write position alone
    }
    CRC32C crc = new CRC32C();
    crc.update(tail.flip());
    return crc.getValue();
  }

  /**
   * Starts forcing what was written so far to disk in the background, every few megabytes ({@link
   * SyncAhead}): the checkpoint's own {@link #sync} then finds little left to write.
   */
  public void syncAhead() {
    if (ahead != null) {
      ahead.maybeStart(length);
    }
  }

  /** Waits for the background sync, if one runs, and throws its failure, if one ever failed. */
  private void awaitAhead() throws IOException {
    if (ahead != null) {
      ahead.await();
    }
  }

  /**
   * Forces what was flushed to disk (a file; nothing for a stream). Safe while another thread
   * writes on: bytes written meanwhile may reach the disk too, and that is all.
   */
  public void force() throws IOException {
    if (channel == null) {
      return;
    }
    awaitAhead();
    try {
      channel.force(false);
    } catch (IOException e) {
      throw failed("sync to disk", e);
    }
  }

  /** Flushes and, for a file, forces it to disk: what a checkpoint needs before it commits. */
  public void sync() throws IOException {
    flush();
    awaitAhead();
    if (channel != null) {
      try {
        channel.force(false);
      } catch (IOException e) {
        throw failed("sync to disk", e);
      }
    }
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (compression.isCompressed() && length == 0 && frame == null) {
        frame = compression.frame(new FileSink()); // no records: still a file the tools read
      }
      flush();
    } finally {
      if (ahead != null) {
        ahead.settle(); // not under a running force; its failure, if any, no longer matters
      }
      if (channel != null) {
        channel.close(); // and with it the lock, even when the last write failed
      } else if (ownsStream) {
        stream.close();
      }
    }
  }
}
