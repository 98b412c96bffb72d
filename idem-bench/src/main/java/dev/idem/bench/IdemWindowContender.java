package dev.idem.bench;

import dev.idem.core.Fingerprinter;
import dev.idem.engine.Verdict;
import dev.idem.engine.window.WindowedDeduplicator;
import java.time.Duration;

/** idem's {@link WindowedDeduplicator}, fed the key bytes as {@code idem dedup} feeds it. */
final class IdemWindowContender implements WindowContender {

  private final WindowedDeduplicator dedup;
  private final Fingerprinter fingerprinter = Fingerprinter.xxh3();
  private final long[] fingerprint = new long[2];

  private IdemWindowContender(WindowedDeduplicator.Builder builder) {
    this.dedup =
        builder
            .maxDelay(Duration.ofMillis(ClickStream.MAX_DELAY))
            .allowedLateness(Duration.ofMillis(ClickStream.LATENESS))
            .build();
  }

  static IdemWindowContender sliding() {
    return new IdemWindowContender(
        WindowedDeduplicator.builder().sliding(Duration.ofMillis(ClickStream.WINDOW)));
  }

  static IdemWindowContender tumbling() {
    return new IdemWindowContender(
        WindowedDeduplicator.builder().tumbling(Duration.ofMillis(ClickStream.WINDOW)));
  }

  @Override
  public Verdict check(byte[] key, int length, long time) {
    fingerprinter.fingerprintInto(key, 0, length, fingerprint, 0);
    return dedup.check(fingerprint[0], fingerprint[1], time);
  }

  @Override
  public long held() {
    return dedup.stats().held();
  }

  @Override
  public long peakHeld() {
    return dedup.stats().peakHeld();
  }

  @Override
  public Object state() {
    return dedup;
  }
}
