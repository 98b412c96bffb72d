package dev.idem.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code window}: "was this click seen in the last 10 minutes?" over a synthetic click stream
 * ({@link ClickStream}), idem's {@code WindowedDeduplicator} (sliding and tumbling) against the
 * {@code HashMap} TTL map people write first, each in a JVM of its own ({@link WindowProbe}). One
 * state run per contender measures the state it holds; the timed runs measure speed. The oracle is
 * the generator's own: every fresh click kept; for the sliding contenders every duplicate within
 * 400 s dropped, and the same kept events (checksum) for idem's sliding window and the map; every
 * run of a contender the same verdicts.
 */
final class WindowScenario extends Scenario {

  WindowScenario() {
    super(
        "window",
        10_000_000,
        "Windowed dedup (10 minutes, max delay 30 s, lateness 1 min) of a click stream: idem"
            + " sliding and tumbling against a HashMap TTL map. --set heap=SIZE (default 3g).");
  }

  @Override
  void run(Bench b) throws Exception {
    List<String> names =
        b.only.isEmpty() ? List.of("idem-sliding", "idem-tumbling", "hashmap-ttl") : b.only;
    String heap = b.option("heap", "3g");
    String events = Long.toString(b.size);
    Map<String, ProcessHarness.Outcome> state = new LinkedHashMap<>();
    for (String name : names) {
      state.put(
          name,
          b.measure(
              Contender.java(name, heap, WindowProbe.class, name, events, "state"),
              ProcessHarness.Watch.NONE));
    }
    String sliding = checksum(state.get("idem-sliding"));
    for (int rep = 1; rep <= b.reps; rep++) {
      for (String name : Bench.rotation(names, rep)) {
        ProcessHarness.Outcome o =
            b.measure(
                Contender.java(name, heap, WindowProbe.class, name, events, "timed"),
                ProcessHarness.Watch.NONE);
        long fresh = count(o, "FRESH", "KEPT");
        long freshAll = fresh + count(o, "FRESH", "DUPLICATE") + count(o, "FRESH", "LATE");
        long dup = count(o, "DUPLICATE", "DUPLICATE");
        long dupAll = dup + count(o, "DUPLICATE", "KEPT") + count(o, "DUPLICATE", "LATE");
        boolean slides = !name.equals("idem-tumbling");
        boolean same = checksum(o).equals(checksum(state.get(name)));
        boolean agree =
            !name.equals("hashmap-ttl") || sliding == null || sliding.equals(checksum(o));
        boolean correct =
            o.ok() && fresh == freshAll && (!slides || dup == dupAll) && same && agree;
        String check =
            String.format(
                "fresh kept %d/%d, duplicates dropped %d/%d, same as its state run %s%s",
                fresh,
                freshAll,
                dup,
                dupAll,
                same,
                name.equals("hashmap-ttl") ? ", agrees with idem-sliding " + agree : "");
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("events_per_s", Long.parseLong(o.stat("events_per_s")));
        metrics.put("peak_held", Long.parseLong(state.get(name).stat("peak_held")));
        metrics.put("peak_state_mib", Long.parseLong(state.get(name).stat("peak_state_mib")));
        metrics.put("gc_ms", Long.parseLong(o.stat("gc_ms")));
        metrics.put(
            "late_answered_late", count(o, "LATE_RESEND", "LATE") + count(o, "LATE_FRESH", "LATE"));
        b.record("window", "", name, rep, o, correct, check, "idem-sliding", metrics);
      }
    }
  }

  private static String checksum(ProcessHarness.Outcome o) {
    return o == null ? null : o.stat("checksum");
  }

  private static long count(ProcessHarness.Outcome o, String kind, String verdict) {
    String v = o.stat(kind + "." + verdict);
    return v == null ? -1 : Long.parseLong(v);
  }
}
