package dev.idem.engine.job;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An output of a job: buffered writes, a length that counts what was accepted (buffered or not),
 * and {@link #sync()} for checkpoints. Opened at a checkpoint's length, it cuts off whatever a
 * crash left after it; it refuses a file shorter than that length, which someone else changed.
 */
final class OutputFile implements AutoCloseable {

  private final String name;
  private final FileChannel channel;
  private final OutputStream stream;
  private final ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
  private long length;

  private OutputFile(String name, FileChannel channel, OutputStream stream, long length) {
    this.name = name;
    this.channel = channel;
    this.stream = stream;
    this.length = length;
  }

  /**
   * Opens {@code path} for a job resumed at {@code checkpointLength} bytes (0 for a new job, which
   * creates or empties the file).
   *
   * @throws IOException naming the file when it is shorter than the checkpoint says
   */
  static OutputFile open(Path path, long checkpointLength) throws IOException {
    requireDirectory(path);
    FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.READ);
    long size = ch.size();
    if (size < checkpointLength) {
      ch.close();
      throw new IOException(path + " is " + size + " bytes, shorter than the " + checkpointLength
          + " bytes of the last checkpoint: it was changed outside this job; start over with a "
          + "fresh --state directory");
    }
    ch.truncate(checkpointLength);
    ch.position(checkpointLength);
    return new OutputFile(path.toString(), ch, null, checkpointLength);
  }

  /**
   * Fails, naming the file, when the directory {@code path} would go in does not exist: jobs that
   * open their output late check this first.
   */
  static void requireDirectory(Path path) throws IOException {
    Path dir = path.toAbsolutePath().getParent();
    if (!Files.isDirectory(dir)) {
      throw new IOException(path + ": cannot write: directory " + dir + " does not exist");
    }
  }

  /** Standard output (or any stream): no truncation, and sync only flushes. */
  static OutputFile stream(String name, OutputStream out) {
    return new OutputFile(name, null, out, 0);
  }

  void write(byte[] b, int off, int len) throws IOException {
    if (len > buffer.remaining()) {
      flush();
      if (len > buffer.capacity()) {
        writeDirect(ByteBuffer.wrap(b, off, len));
        length += len;
        return;
      }
    }
    buffer.put(b, off, len);
    length += len;
  }

  void write(byte b) throws IOException {
    if (!buffer.hasRemaining()) {
      flush();
    }
    buffer.put(b);
    length++;
  }

  /** Bytes accepted so far, buffered ones included. */
  long length() {
    return length;
  }

  String name() {
    return name;
  }

  void flush() throws IOException {
    buffer.flip();
    writeDirect(buffer);
    buffer.clear();
    if (stream != null) {
      stream.flush();
    }
  }

  private void writeDirect(ByteBuffer b) throws IOException {
    if (channel != null) {
      while (b.hasRemaining()) {
        channel.write(b);
      }
    } else {
      stream.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
      b.position(b.limit());
    }
  }

  /** Flushes and, for a file, forces it to disk: what a checkpoint needs before it commits. */
  void sync() throws IOException {
    flush();
    if (channel != null) {
      channel.force(false);
    }
  }

  @Override
  public void close() throws IOException {
    flush();
    if (channel != null) {
      channel.close();
    }
  }
}
