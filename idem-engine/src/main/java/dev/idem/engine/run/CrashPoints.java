package dev.idem.engine.run;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where a job may be killed, named: each job calls {@link #reached} at every step of its protocol
 * (state created, inputs checked, outputs cut, a record handled, outputs synced, checkpoint
 * written, ...), with a step of its own enum. Jobs run with {@link #NONE}, or, for tests that kill
 * the real command, with what {@link #configured()} reads from the system property {@value
 * #PROPERTY}: {@code STEP} or {@code STEP:N} halts the JVM at the {@code N}th time (default 1) that
 * {@code STEP} is reached, exactly as a SIGKILL would there — no finally block, shutdown hook or
 * buffer flush runs. In-process tests pass an implementation that throws instead.
 */
@FunctionalInterface
public interface CrashPoints {

  /** The system property that names a step to halt at. */
  String PROPERTY = "idem.crash-at";

  /** The exit status of a halt at a crash point: that of a process killed by SIGKILL. */
  int HALT_STATUS = 137;

  CrashPoints NONE = step -> {};

  void reached(Enum<?> step);

  /** {@link #NONE}, or a halt at the step {@value #PROPERTY} names. */
  static CrashPoints configured() {
    String at = System.getProperty(PROPERTY);
    if (at == null || at.isBlank()) {
      return NONE;
    }
    int colon = at.indexOf(':');
    String name = (colon < 0 ? at : at.substring(0, colon)).strip().toUpperCase(Locale.ROOT);
    long nth = colon < 0 ? 1 : Long.parseLong(at.substring(colon + 1).strip());
    AtomicLong seen = new AtomicLong(); // steps are reached on the job's and checkpoint threads
    return step -> {
      if (step.name().equals(name) && seen.incrementAndGet() == nth) {
        Runtime.getRuntime().halt(HALT_STATUS);
      }
    };
  }
}
