package dev.idem.core.filter;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;

/**
 * A fixed-size byte array seen as a channel, so that a snapshot held in memory is written and read
 * by the very code that writes and reads snapshot files ({@link SnapshotFormat}).
 */
final class ByteArrayChannel implements SeekableByteChannel {

  private final byte[] bytes;
  private final boolean writable;
  private int position;
  private boolean open = true;

  private ByteArrayChannel(byte[] bytes, boolean writable) {
    this.bytes = bytes;
    this.writable = writable;
  }

  /** A channel that reads {@code bytes}. */
  static ByteArrayChannel reading(byte[] bytes) {
    return new ByteArrayChannel(bytes, false);
  }

  /** A channel that fills {@code bytes}; writing past its end is a bug in the size computed. */
  static ByteArrayChannel writing(byte[] bytes) {
    return new ByteArrayChannel(bytes, true);
  }

  @Override
  public int read(ByteBuffer dst) throws ClosedChannelException {
    checkOpen();
    if (position >= bytes.length) {
      return -1;
    }
    int n = Math.min(dst.remaining(), bytes.length - position);
    dst.put(bytes, position, n);
    position += n;
    return n;
  }

  @Override
  public int write(ByteBuffer src) throws ClosedChannelException {
    checkOpen();
    if (!writable) {
      throw new NonWritableChannelException();
    }
    int n = src.remaining();
    if (n > bytes.length - position) {
      throw new IllegalStateException(
          "writing " + n + " bytes at " + position + " overruns an array of " + bytes.length);
    }
    src.get(bytes, position, n);
    position += n;
    return n;
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  public ByteArrayChannel position(long newPosition) {
    if (newPosition < 0) {
      throw new IllegalArgumentException("negative position " + newPosition);
    }
    position = (int) Math.min(newPosition, bytes.length);
    return this;
  }

  @Override
  public long size() {
    return bytes.length;
  }

  @Override
  public SeekableByteChannel truncate(long size) {
    throw new UnsupportedOperationException("a byte array channel has a fixed size");
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public void close() {
    open = false;
  }

  private void checkOpen() throws ClosedChannelException {
    if (!open) {
      throw new ClosedChannelException();
    }
  }
}
