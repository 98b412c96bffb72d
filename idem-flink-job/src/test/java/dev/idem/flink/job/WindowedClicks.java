package dev.idem.flink.job;

import dev.idem.engine.Verdict;
import dev.idem.engine.window.WindowedDeduplicator;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded click stream for window mode, in three phases, with its reference from idem-engine's
 * {@link WindowedDeduplicator} (docs/WINDOWS.md's definitions, checked there against a brute
 * force):
 *
 * <ol>
 *   <li>{@link #inOrder}: clicks over five one-minute windows, out of order by up to 4 s (less than
 *       {@link #MAX_DELAY}), so none is late however the cluster's watermark lags;
 *   <li>{@link #advance}: one click per input partition twenty minutes later, which moves every
 *       partition's watermark past all the windows of phase 1;
 *   <li>{@link #late}: clicks of phase 1's windows, sent once the job's watermark is past them:
 *       every one is late.
 * </ol>
 */
final class WindowedClicks {
  static final Duration WINDOW = Duration.ofMinutes(1);
  static final Duration MAX_DELAY = Duration.ofSeconds(5);

  /** A multiple of the window, so windows start at T0 as Flink aligns them (to the epoch). */
  static final long T0 = 1_699_999_980_000L;

  static final long ADVANCED_TO = T0 + Duration.ofMinutes(20).toMillis();

  final List<GeneratedClicks.Click> inOrder = new ArrayList<>();
  final List<byte[]> advance = new ArrayList<>();
  final List<GeneratedClicks.Click> late = new ArrayList<>();
  final List<ByteBuffer> expectedKept = new ArrayList<>();
  final List<ByteBuffer> expectedLate = new ArrayList<>();

  WindowedClicks(long seed, int count, int keySpace, int partitions) {
    SplittableRandom random = new SplittableRandom(seed);
    long step = Duration.ofMinutes(5).toMillis() / count;
    for (int i = 0; i < count; i++) {
      long t = T0 + i * step - random.nextLong(4_000);
      inOrder.add(click("u" + random.nextInt(keySpace), t, i));
    }
    for (int p = 0; p < partitions; p++) {
      advance.add(click("advance-" + p, ADVANCED_TO, count + p).bytes());
    }
    for (int i = 0; i < Math.max(10, count / 50); i++) {
      long t = T0 + random.nextLong(Duration.ofMinutes(5).toMillis());
      late.add(click("u" + random.nextInt(keySpace), t, 2 * count + i));
    }

    WindowedDeduplicator reference =
        WindowedDeduplicator.builder().tumbling(WINDOW).maxDelay(MAX_DELAY).build();
    judge(reference, inOrder, Verdict.LATE, "phase 1 has no late click");
    for (int p = 0; p < partitions; p++) {
      GeneratedClicks.Click a = new GeneratedClicks.Click("advance-" + p, advance.get(p));
      judge(reference, List.of(a), Verdict.LATE, "an advancing click is kept");
    }
    for (GeneratedClicks.Click c : late) {
      Verdict v = reference.check(keyOf(c), timeOf(c));
      if (v != Verdict.LATE) {
        throw new IllegalStateException("phase 3's clicks are all late, not " + v);
      }
      expectedLate.add(ByteBuffer.wrap(c.bytes()));
    }
  }

  private void judge(
      WindowedDeduplicator reference,
      List<GeneratedClicks.Click> clicks,
      Verdict never,
      String why) {
    for (GeneratedClicks.Click c : clicks) {
      Verdict v = reference.check(keyOf(c), timeOf(c));
      if (v == never) {
        throw new IllegalStateException("the generator is wrong: " + why);
      }
      if (v == Verdict.KEPT) {
        expectedKept.add(ByteBuffer.wrap(c.bytes()));
      }
    }
  }

  private static GeneratedClicks.Click click(String id, long at, int seq) {
    String json = "{\"id\":\"" + id + "\",\"at\":" + at + ",\"seq\":" + seq + "}";
    return new GeneratedClicks.Click(id, json.getBytes(StandardCharsets.UTF_8));
  }

  private static String keyOf(GeneratedClicks.Click c) {
    return c.kafkaKey();
  }

  private static long timeOf(GeneratedClicks.Click c) {
    String json = new String(c.bytes(), StandardCharsets.UTF_8);
    int start = json.indexOf("\"at\":") + 5;
    return Long.parseLong(json.substring(start, json.indexOf(',', start)));
  }
}
