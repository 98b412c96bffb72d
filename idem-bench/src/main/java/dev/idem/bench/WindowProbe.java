package dev.idem.bench;

import dev.idem.engine.Verdict;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import org.openjdk.jol.info.GraphLayout;

/**
 * One contender over the click stream, in a JVM of its own ({@link WindowRun} starts it with a
 * fixed, pre-touched heap). Times the events in slices with the clock stopped while sampling, and
 * prints tab-separated lines for the host:
 *
 * <ul>
 *   <li>{@code SLICE events nanos}: one timed slice (n/50 events),
 *   <li>{@code SAMPLE events eventTime held jolBytes} (event time: the stream's clock): state every
 *       n/200 events; jolBytes is JOL's walk of idem's state (a handful of arrays, cheap), -1 for
 *       the HashMap (millions of objects: too slow to walk 200 times),
 *   <li>{@code HEAP events eventTime held bytes}: every n/20 events with {@code --state}: used heap
 *       after full collections minus the same before the contender existed,
 *   <li>{@code COUNT kind kept duplicate late} per kind of generated event, and {@code RESULT name
 *       value} (the peak held, a checksum of which non-late events were kept, the collection time
 *       while timed).
 * </ul>
 */
public final class WindowProbe {

  private WindowProbe() {}

  public static void main(String[] args) throws InterruptedException {
    String name = args[0];
    long n = Long.parseLong(args[1]);
    boolean state = args.length > 2 && args[2].equals("--state");
    PrintStream out = System.out;
    ClickStream stream = new ClickStream();
    long baseline = state ? MemoryProbe.usedAfterGc() : 0;
    WindowContender contender = WindowContender.create(name);
    long sliceEvery = Math.max(1, n / 50);
    long sampleEvery = Math.max(1, n / 200);
    long heapEvery = sampleEvery * 10;
    long[][] counts = new long[ClickStream.Kind.values().length][Verdict.values().length];
    long keptChecksum = 0;
    long nextSlice = sliceEvery;
    long nextSample = sampleEvery;
    long paused = 0;
    long gcStart = gcMillis();
    long gcInSamples = 0;
    long sliceStart = System.nanoTime();
    for (long i = 0; i < n; i++) {
      stream.next();
      Verdict v = contender.check(stream.key, stream.keyLength, stream.time);
      counts[stream.kind.ordinal()][v.ordinal()]++;
      if (v == Verdict.KEPT && !stream.kind.late()) {
        keptChecksum += mix(i);
      }
      long done = i + 1;
      if (done == nextSample || done == n) {
        long p0 = System.nanoTime();
        long gc0 = gcMillis();
        nextSample += sampleEvery;
        long jol =
            state && contender.state() != null && !name.startsWith("hashmap")
                ? GraphLayout.parseInstance(contender.state()).totalSize()
                : -1;
        out.printf(
            Locale.ROOT, "SAMPLE\t%d\t%d\t%d\t%d%n", done, stream.now(), contender.held(), jol);
        if (state && (done % heapEvery == 0 || done == n)) {
          long used = MemoryProbe.usedAfterGc() - baseline;
          out.printf(
              Locale.ROOT, "HEAP\t%d\t%d\t%d\t%d%n", done, stream.now(), contender.held(), used);
        }
        gcInSamples += gcMillis() - gc0;
        paused += System.nanoTime() - p0;
      }
      if (done == nextSlice || done == n) {
        long now = System.nanoTime();
        out.printf(
            Locale.ROOT,
            "SLICE\t%d\t%d%n",
            done - (nextSlice - sliceEvery),
            now - sliceStart - paused);
        nextSlice += sliceEvery;
        sliceStart = now;
        paused = 0;
      }
    }
    for (ClickStream.Kind k : ClickStream.Kind.values()) {
      long[] c = counts[k.ordinal()];
      out.printf(
          Locale.ROOT,
          "COUNT\t%s\t%d\t%d\t%d%n",
          k,
          c[Verdict.KEPT.ordinal()],
          c[Verdict.DUPLICATE.ordinal()],
          c[Verdict.LATE.ordinal()]);
    }
    out.printf(Locale.ROOT, "RESULT\tpeakHeld\t%d%n", contender.peakHeld());
    out.printf(Locale.ROOT, "RESULT\tkeptChecksum\t%d%n", keptChecksum);
    out.printf(Locale.ROOT, "RESULT\tgcMillis\t%d%n", gcMillis() - gcStart - gcInSamples);
    out.flush();
  }

  /** A well-spread image of an event index, summed over kept events as an order-free checksum. */
  private static long mix(long i) {
    long z = (i + 1) * 0x9E37_79B9_7F4A_7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
    return z ^ (z >>> 31);
  }

  /** Collection time so far, all collectors (the samples' own full GCs are subtracted). */
  private static long gcMillis() {
    long ms = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ms += Math.max(0, gc.getCollectionTime());
    }
    return ms;
  }
}
