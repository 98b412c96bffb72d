package dev.idem.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The one client of the serve scenario, the same for redis-server and idem serve: requests written
 * in RESP through a buffer, replies read and summed, so pipelining is the caller's choice of how
 * many requests to write before reading their replies.
 */
final class RespClient implements AutoCloseable {
  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;

  RespClient(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setTcpNoDelay(true);
    out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
    in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
  }

  void send(String... words) throws IOException {
    header('*', words.length);
    for (String w : words) {
      bulk(w.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** A command of {@code head} words followed by {@code ids}. */
  void send(String[] head, byte[][] ids) throws IOException {
    header('*', head.length + ids.length);
    for (String w : head) {
      bulk(w.getBytes(StandardCharsets.UTF_8));
    }
    for (byte[] id : ids) {
      bulk(id);
    }
  }

  private void header(char c, long n) throws IOException {
    out.write(c);
    out.write(Long.toString(n).getBytes(StandardCharsets.US_ASCII));
    out.write('\r');
    out.write('\n');
  }

  private void bulk(byte[] b) throws IOException {
    header('$', b.length);
    out.write(b);
    out.write('\r');
    out.write('\n');
  }

  void flush() throws IOException {
    out.flush();
  }

  /** Reads one reply: integers and booleans summed (arrays too), anything else counts 0. */
  long read() throws IOException {
    int type = in.read();
    switch (type) {
      case ':' -> {
        return Long.parseLong(line());
      }
      case '#' -> {
        return line().equals("t") ? 1 : 0;
      }
      case '+' -> {
        line();
        return 0;
      }
      case '$' -> {
        int n = Integer.parseInt(line());
        if (n >= 0) {
          in.readNBytes(n + 2);
        }
        return 0;
      }
      case '*' -> {
        long n = Long.parseLong(line());
        long sum = 0;
        for (long i = 0; i < n; i++) {
          sum += read();
        }
        return sum;
      }
      case '-' -> throw new IOException("error reply: " + line());
      default -> throw new IOException("unexpected reply type " + type);
    }
  }

  private String line() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int c; (c = in.read()) != '\r'; ) {
      if (c < 0) {
        throw new IOException("connection closed");
      }
      sb.append((char) c);
    }
    in.read();
    return sb.toString();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
