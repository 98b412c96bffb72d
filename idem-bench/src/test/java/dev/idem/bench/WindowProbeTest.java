package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.Verdict;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The window scenario's baseline and stream. */
class WindowProbeTest {

  private static Verdict check(WindowProbe.Contender c, String key, long time) {
    byte[] b = key.getBytes(StandardCharsets.US_ASCII);
    return c.check(b, b.length, ClickStream.START + time);
  }

  @Test
  void theTtlMapDropsARepeatWithinTheWindowOnly() {
    for (String name : new String[] {"hashmap-ttl", "idem-sliding"}) {
      WindowProbe.Contender c = WindowProbe.create(name);
      assertThat(check(c, "user1/ad1", 0)).as(name).isEqualTo(Verdict.KEPT);
      assertThat(check(c, "user1/ad1", 1_000)).as(name).isEqualTo(Verdict.DUPLICATE);
      assertThat(check(c, "user2/ad1", 2_000)).as(name).isEqualTo(Verdict.KEPT);
      assertThat(check(c, "user1/ad1", ClickStream.WINDOW + 1)).as(name).isEqualTo(Verdict.KEPT);
      assertThat(check(c, "user1/ad1", ClickStream.WINDOW + 2))
          .as(name)
          .isEqualTo(Verdict.DUPLICATE);
      assertThat(c.peakHeld()).as(name).isGreaterThanOrEqualTo(2);
    }
  }

  @Test
  void theStreamIsTheSameInEveryJvmAndMostlyFresh() {
    ClickStream a = new ClickStream();
    ClickStream b = new ClickStream();
    int fresh = 0;
    for (int i = 0; i < 100_000; i++) {
      a.next();
      b.next();
      assertThat(a.time).isEqualTo(b.time);
      assertThat(new String(a.key, 0, a.keyLength, StandardCharsets.US_ASCII))
          .isEqualTo(new String(b.key, 0, b.keyLength, StandardCharsets.US_ASCII));
      fresh += a.kind == ClickStream.Kind.FRESH ? 1 : 0;
    }
    assertThat(fresh).isBetween(90_000, 97_000);
  }
}
