package dev.idem.engine.records;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class Crc32cTest {

  private static long crc(byte[] b, int from, int to) {
    CRC32C c = new CRC32C();
    c.update(b, from, to - from);
    return c.getValue();
  }

  @Test
  void joiningTwoChecksumsGivesTheChecksumOfTheJoinedBytes() {
    Random r = new Random(15);
    byte[] b = new byte[300_000];
    r.nextBytes(b);
    int[] cuts = {0, 1, 2, 7, 8, 4095, 65_536, 150_001, 299_999, 300_000};
    for (int cut : cuts) {
      assertThat(Crc32c.combine(crc(b, 0, cut), crc(b, cut, b.length), b.length - cut))
          .as("cut at %d", cut)
          .isEqualTo(crc(b, 0, b.length));
    }
    for (int i = 0; i < 200; i++) {
      int from = r.nextInt(b.length);
      int cut = from + r.nextInt(b.length - from + 1);
      int to = cut + r.nextInt(b.length - cut + 1);
      assertThat(Crc32c.combine(crc(b, from, cut), crc(b, cut, to), to - cut))
          .isEqualTo(crc(b, from, to));
    }
  }

  @Test
  void theEmptyRangeIsNeutral() {
    byte[] b = "what the job read".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    long whole = crc(b, 0, b.length);
    assertThat(Crc32c.combine(whole, 0, 0)).isEqualTo(whole);
    assertThat(Crc32c.combine(0, whole, b.length)).isEqualTo(whole);
  }
}
