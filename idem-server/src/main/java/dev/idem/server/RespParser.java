package dev.idem.server;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Reads requests in the Redis protocol from a buffer that fills as bytes arrive: multibulk ({@code
 * *N\r\n$len\r\narg\r\n...}, what every client library sends) and inline ({@code PING\r\n}, what a
 * person types into telnet). Incremental: {@link #next} consumes the bytes of each complete
 * argument and keeps it, so a large request arriving in many reads is parsed once.
 *
 * <p>Every limit is checked on the length a header announces, before anything is allocated for it:
 * at most {@code maxArguments} arguments, each at most {@code maxBulk} bytes, all together at most
 * {@code maxRequest} bytes. An argument is copied out only once all its bytes are there, and the
 * argument array grows as arguments come, so the parser holds at most one request's announced and
 * checked size. Anything else ends in a {@link ProtocolException} with Redis's own words.
 */
final class RespParser {

  /** The longest header line ({@code *N} or {@code $N}) or inline request accepted. */
  static final int MAX_LINE = 64 * 1024;

  private static final byte[][] NO_ARGS = new byte[0][];

  private int maxArguments;
  private int maxBulk;
  private long maxRequest;

  /** Arguments announced by the current request's header; 0 between requests. */
  private int expected;

  private byte[][] args = NO_ARGS;
  private int count;

  /** The length of the bulk whose header was read, or -1 before its header. */
  private int bulk = -1;

  private long requestBytes;
  private long allocated;

  RespParser(int maxArguments, int maxBulk, long maxRequest) {
    limits(maxArguments, maxBulk, maxRequest);
  }

  /** Changes the limits (an authenticated client gets the larger ones). */
  void limits(int maxArguments, int maxBulk, long maxRequest) {
    this.maxArguments = maxArguments;
    this.maxBulk = maxBulk;
    this.maxRequest = maxRequest;
  }

  /** Bytes allocated for arguments since this parser was made (for the limits' tests). */
  long allocatedBytes() {
    return allocated;
  }

  /** Bytes held now for the request being read. */
  long heldBytes() {
    return requestBytes;
  }

  /**
   * The next complete request's arguments, or {@code null} when more bytes are needed; an empty
   * array for an empty inline line (which the caller skips).
   *
   * @throws ProtocolException when the bytes break the protocol or a limit
   */
  byte[][] next(ByteBuf in) throws ProtocolException {
    if (expected == 0) {
      if (!in.isReadable()) {
        return null;
      }
      if (in.getByte(in.readerIndex()) != '*') {
        return inline(in);
      }
      long n = line(in, 'm');
      if (n == Long.MIN_VALUE) {
        return null;
      }
      if (n <= 0) {
        return NO_ARGS; // "*0" and "*-1": nothing to do
      }
      if (n > maxArguments) {
        throw new ProtocolException(
            "ERR Protocol error: invalid multibulk length ("
                + n
                + " arguments; the limit is "
                + maxArguments
                + ")");
      }
      expected = (int) n;
      args = new byte[Math.min(expected, 16)][];
      allocated += 16L * args.length;
      count = 0;
      requestBytes = 0;
    }
    while (count < expected) {
      if (bulk < 0) {
        if (!in.isReadable()) {
          return null;
        }
        byte b = in.getByte(in.readerIndex());
        if (b != '$') {
          throw new ProtocolException(
              "ERR Protocol error: expected '$', got '" + printable(b) + "'");
        }
        long n = line(in, 'b');
        if (n == Long.MIN_VALUE) {
          return null;
        }
        if (n < 0 || n > maxBulk) {
          throw new ProtocolException(
              "ERR Protocol error: invalid bulk length ("
                  + n
                  + " bytes; the limit is "
                  + maxBulk
                  + ")");
        }
        if (requestBytes + n > maxRequest) {
          throw new ProtocolException(
              "ERR Protocol error: request larger than "
                  + maxRequest
                  + " bytes (the limit of one request)");
        }
        requestBytes += n;
        bulk = (int) n;
      }
      if (in.readableBytes() < bulk + 2L) {
        return null;
      }
      byte[] arg = new byte[bulk];
      allocated += bulk;
      in.readBytes(arg);
      if (in.readByte() != '\r' || in.readByte() != '\n') {
        throw new ProtocolException("ERR Protocol error: bulk string not ended by CRLF");
      }
      if (count == args.length) {
        int grown = (int) Math.min(expected, 2L * args.length);
        allocated += 16L * (grown - args.length);
        args = Arrays.copyOf(args, grown);
      }
      args[count++] = arg;
      bulk = -1;
    }
    byte[][] done = args;
    expected = 0;
    args = NO_ARGS;
    count = 0;
    requestBytes = 0;
    return done;
  }

  /**
   * Reads a header line {@code <prefix>N\r\n} and returns N, or {@link Long#MIN_VALUE} (consuming
   * nothing) when the line is not complete yet.
   */
  private static long line(ByteBuf in, char kind) throws ProtocolException {
    int start = in.readerIndex();
    int end = in.writerIndex();
    int lf = in.indexOf(start, Math.min(end, start + 32), (byte) '\n');
    if (lf < 0) {
      if (end - start >= 32) {
        throw new ProtocolException(
            kind == 'm'
                ? "ERR Protocol error: invalid multibulk length"
                : "ERR Protocol error: invalid bulk length");
      }
      return Long.MIN_VALUE;
    }
    if (lf - start < 3 || in.getByte(lf - 1) != '\r') {
      throw new ProtocolException(
          kind == 'm'
              ? "ERR Protocol error: invalid multibulk length"
              : "ERR Protocol error: invalid bulk length");
    }
    long value = 0;
    boolean negative = false;
    int i = start + 1;
    if (in.getByte(i) == '-') {
      negative = true;
      i++;
    }
    if (i == lf - 1) {
      throw invalid(kind);
    }
    for (; i < lf - 1; i++) {
      byte d = in.getByte(i);
      if (d < '0' || d > '9' || value > (Long.MAX_VALUE - 9) / 10) {
        throw invalid(kind);
      }
      value = value * 10 + (d - '0');
    }
    in.readerIndex(lf + 1);
    return negative ? -value : value;
  }

  private static ProtocolException invalid(char kind) {
    return new ProtocolException(
        kind == 'm'
            ? "ERR Protocol error: invalid multibulk length"
            : "ERR Protocol error: invalid bulk length");
  }

  /** An inline request: one line, arguments split on blanks, with Redis's quoting. */
  private byte[][] inline(ByteBuf in) throws ProtocolException {
    int start = in.readerIndex();
    int end = in.writerIndex();
    int lf = in.indexOf(start, Math.min(end, start + MAX_LINE + 1), (byte) '\n');
    if (lf < 0) {
      if (end - start > MAX_LINE) {
        throw new ProtocolException("ERR Protocol error: too big inline request");
      }
      return null;
    }
    int stop = lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
    byte[] line = new byte[stop - start];
    allocated += line.length;
    in.getBytes(start, line);
    in.readerIndex(lf + 1);
    byte[][] split = InlineSplitter.split(line);
    if (split == null) {
      throw new ProtocolException("ERR Protocol error: unbalanced quotes in request");
    }
    if (split.length > maxArguments) {
      throw new ProtocolException("ERR Protocol error: invalid multibulk length");
    }
    allocated += 16L * split.length;
    return split;
  }

  private static String printable(byte b) {
    return b >= 32 && b < 127 ? Character.toString((char) b) : String.format("\\x%02x", b & 0xff);
  }
}
