package dev.idem.flink.job.cluster;

import java.time.Duration;
import java.util.function.Supplier;

/** Polls a condition until it holds or time runs out; never asserts how long anything takes. */
public final class Waits {
  /** A condition that may fail while the system is still coming up. */
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  private Waits() {}

  public static void until(Condition condition, Duration timeout, Supplier<String> what)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (condition.holds()) {
          return;
        }
      } catch (ProcessDied e) {
        throw e;
      } catch (Exception e) {
        last = e;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException(
        "timed out after " + timeout + " waiting for " + what.get(), last);
  }
}
