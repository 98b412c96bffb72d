package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The request parser on random, truncated and hostile bytes: it returns requests or asks for more,
 * and fails only with a protocol error; it never allocates more than the limits allow for the bytes
 * it was given; and a valid stream parses to the same requests however it is split.
 */
class RespParserTest {

  private static final int MAX_ARGS = 64;
  private static final int MAX_BULK = 1024;
  private static final long MAX_REQUEST = 4096;

  /** Feeds {@code bytes} in pieces; returns the requests, stopping at a protocol error. */
  private static List<byte[][]> feed(RespParser p, byte[] bytes, int[] cuts) {
    List<byte[][]> out = new ArrayList<>();
    ByteBuf buf = Unpooled.buffer();
    int at = 0;
    for (int i = 0; i <= cuts.length; i++) {
      int end = i < cuts.length ? Math.min(bytes.length, Math.max(at, cuts[i])) : bytes.length;
      buf.writeBytes(bytes, at, end - at);
      at = end;
      try {
        for (byte[][] r; (r = p.next(buf)) != null; ) {
          out.add(r);
        }
      } catch (ProtocolException e) {
        assertThat(e.getMessage()).startsWith("ERR Protocol error");
        out.add(null);
        return out;
      }
      buf.discardReadBytes();
    }
    return out;
  }

  @Property(tries = 2000)
  void randomBytesGiveRequestsOrAProtocolErrorNeverAnythingElse(
      @ForAll @Size(max = 300) byte[] bytes, @ForAll @Size(max = 5) int[] cuts) {
    RespParser p = new RespParser(MAX_ARGS, MAX_BULK, MAX_REQUEST);
    feed(p, bytes, cuts);
    assertThat(p.allocatedBytes()).isLessThanOrEqualTo(bytes.length + 16L * (MAX_ARGS + 16));
  }

  @Provide
  Arbitrary<byte[]> respLike() {
    Arbitrary<String> pieces =
        Arbitraries.of(
            "*",
            "$",
            "\r\n",
            "\r",
            "\n",
            "1",
            "3",
            "-1",
            "0",
            "99999999999",
            "2147483648",
            "PING",
            "BF.ADD",
            "a",
            " ",
            "\"",
            "'",
            "\\x4",
            "*1\r\n$4\r\nPING\r\n",
            "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n",
            "*2147483647\r\n",
            "$1073741824\r\n",
            "*-5\r\n",
            "$-7\r\n",
            "x");
    return pieces
        .list()
        .ofMaxSize(40)
        .map(l -> String.join("", l).getBytes(StandardCharsets.UTF_8));
  }

  @Property(tries = 3000)
  void respLikeFragmentsGiveRequestsOrAProtocolErrorWithinTheLimits(
      @ForAll("respLike") byte[] bytes, @ForAll @Size(max = 6) int[] cuts) {
    RespParser p = new RespParser(MAX_ARGS, MAX_BULK, MAX_REQUEST);
    feed(p, bytes, cuts);
    // what it holds is what it was given, whatever lengths the headers announced
    assertThat(p.allocatedBytes()).isLessThanOrEqualTo(bytes.length + 16L * (MAX_ARGS + 16));
  }

  @Property(tries = 500)
  void aValidStreamParsesTheSameHoweverItIsSplit(
      @ForAll @Size(min = 1, max = 8)
          List<@Size(min = 1, max = 6) List<@Size(max = 40) byte[]>> requests,
      @ForAll @Size(max = 8) int[] cuts) {
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    for (List<byte[]> r : requests) {
      wire.writeBytes(("*" + r.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
      for (byte[] a : r) {
        wire.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        wire.writeBytes(a);
        wire.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
      }
    }
    int[] sorted = cuts.clone();
    for (int i = 0; i < sorted.length; i++) {
      sorted[i] = Math.floorMod(sorted[i], wire.size() + 1);
    }
    java.util.Arrays.sort(sorted);
    List<byte[][]> got =
        feed(new RespParser(MAX_ARGS, MAX_BULK, MAX_REQUEST), wire.toByteArray(), sorted);
    assertThat(got).hasSize(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      assertThat(got.get(i)).isDeepEqualTo(requests.get(i).toArray(new byte[0][]));
    }
  }

  @Property(tries = 200)
  void everyTruncationOfAValidRequestAsksForMore(@ForAll @IntRange(min = 0, max = 40) int cut) {
    byte[] req =
        "*3\r\n$6\r\nBF.ADD\r\n$2\r\nbf\r\n$5\r\nitem1\r\n".getBytes(StandardCharsets.UTF_8);
    ByteBuf buf = Unpooled.wrappedBuffer(req, 0, Math.min(cut, req.length));
    RespParser p = new RespParser(MAX_ARGS, MAX_BULK, MAX_REQUEST);
    try {
      byte[][] r = p.next(buf);
      assertThat(r == null || cut >= req.length).isTrue();
    } catch (ProtocolException e) {
      throw new AssertionError("a prefix of a valid request is not an error", e);
    }
  }

  private static ProtocolException error(String wire, int args, int bulk, long request) {
    RespParser p = new RespParser(args, bulk, request);
    ByteBuf buf = Unpooled.copiedBuffer(wire, StandardCharsets.UTF_8);
    try {
      while (p.next(buf) != null) {
        // keep going
      }
    } catch (ProtocolException e) {
      assertThat(p.allocatedBytes()).isLessThan(1024);
      return e;
    }
    throw new AssertionError("no error for " + wire);
  }

  @Test
  void limitsAreCheckedOnTheAnnouncedLengthsWithRedisWords() {
    assertThat(error("*2147483647\r\n", 64, 1024, 4096).getMessage())
        .startsWith("ERR Protocol error: invalid multibulk length");
    assertThat(error("*1\r\n$1073741824\r\n", 64, 1024, 4096).getMessage())
        .startsWith("ERR Protocol error: invalid bulk length");
    assertThat(error("*3\r\n$600\r\n" + "x".repeat(600) + "\r\n$600\r\n", 64, 1024, 1000))
        .hasMessageStartingWith("ERR Protocol error: request larger than 1000 bytes");
    assertThat(error("*1\r\nx\r\n", 64, 1024, 4096).getMessage())
        .isEqualTo("ERR Protocol error: expected '$', got 'x'");
    assertThat(error("*abc\r\n", 64, 1024, 4096).getMessage())
        .isEqualTo("ERR Protocol error: invalid multibulk length");
    assertThat(error("PING \"unclosed\r\n", 64, 1024, 4096).getMessage())
        .isEqualTo("ERR Protocol error: unbalanced quotes in request");
    assertThat(error("P".repeat(70_000), 64, 1024, 4096).getMessage())
        .isEqualTo("ERR Protocol error: too big inline request");
  }

  @Test
  void inlineRequestsSplitAsRedisDoes() throws ProtocolException {
    RespParser p = new RespParser(64, 1024, 4096);
    byte[][] r =
        p.next(
            Unpooled.copiedBuffer("SET \"a b\" 'c\\'d' \"\\x41\\n\"\r\n", StandardCharsets.UTF_8));
    assertThat(r.length).isEqualTo(4);
    assertThat(new String(r[1], StandardCharsets.UTF_8)).isEqualTo("a b");
    assertThat(new String(r[2], StandardCharsets.UTF_8)).isEqualTo("c'd");
    assertThat(new String(r[3], StandardCharsets.UTF_8)).isEqualTo("A\n");
    assertThatThrownBy(() -> p.next(Unpooled.copiedBuffer("\"a\"b\n", StandardCharsets.UTF_8)))
        .isInstanceOf(ProtocolException.class);
  }
}
