package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * The crash tests' loop: a resumable command run in child JVMs ({@link ChildProcessTest}), killed
 * with SIGKILL at random moments and rerun with the same command until it finishes; round after
 * round (each with a fresh state and output) until enough kills landed in live jobs.
 */
final class KillLoop {

  /** Hears of each kill and each finished round. */
  interface Watcher {
    /** A run of {@code state} was killed. */
    default void killed(Path state) throws IOException {}

    /** A round finished after {@code kills} kills in all; {@code out} is its output. */
    void finished(int round, int kills, Path out) throws IOException;

    /**
     * Whether a run of {@code state} stands where the test wants a kill (say, in its writing
     * phase). The kills past the wanted number, made because {@link #enough} said no, wait for it
     * rather than fall at random: a short phase late in the run is rarely met by chance. A watcher
     * that overrides {@link #enough} overrides this too.
     */
    default boolean killHere(Path state) throws IOException {
      return true;
    }

    /**
     * Whether the kills so far landed where the test needs one (say, inside a merge), asked once
     * the wanted number landed: on a loaded machine they may all fall early, so the loop kills on,
     * up to three times the number wanted, and the test's own assertion then tells.
     */
    default boolean enough() {
      return true;
    }
  }

  private KillLoop() {}

  /**
   * Runs rounds until {@code wanted} kills; returns the rounds run.
   *
   * @param command the arguments for a state and an output
   * @param spread kills fall at 30 ms plus up to this share of {@code fullMillis}
   */
  static int run(
      Path dir,
      String name,
      BiFunction<Path, Path, List<String>> command,
      long fullMillis,
      double spread,
      int wanted,
      Watcher watcher)
      throws Exception {
    Random random = new Random(name.hashCode());
    int kills = 0;
    int round = 0;
    while (more(kills, wanted, watcher)) {
      Path state = dir.resolve(name + "-state-" + round);
      Path out = dir.resolve(name + "-out-" + round + ".jsonl");
      List<String> args = command.apply(state, out);
      while (true) {
        Process p = ChildProcessTest.start(args.toArray(String[]::new));
        // each run resumes the last; once enough kills landed, the round runs to its end
        long delay =
            !more(kills, wanted, watcher)
                ? TimeUnit.MINUTES.toMillis(5)
                : 30 + (long) (random.nextDouble() * fullMillis * spread);
        if (kills >= wanted && more(kills, wanted, watcher)) {
          awaitWanted(p, state, watcher);
          delay = random.nextInt(20);
        }
        if (p.waitFor(delay, TimeUnit.MILLISECONDS)) {
          assertThat(p.exitValue()).as(stderr(p)).isZero();
          break;
        }
        p.destroyForcibly().waitFor();
        kills++;
        watcher.killed(state);
      }
      watcher.finished(round, kills, out);
      round++;
    }
    System.err.printf(
        "%s: %d kills over %d completed runs (uninterrupted run %d ms)%n",
        name, kills, round, fullMillis);
    return round;
  }

  /** Waits until {@code p} ends or its state is where the watcher wants a kill. */
  private static void awaitWanted(Process p, Path state, Watcher watcher) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (p.isAlive() && !watcher.killHere(state) && System.nanoTime() < deadline) {
      Thread.sleep(2);
    }
  }

  private static boolean more(int kills, int wanted, Watcher watcher) {
    return kills < wanted || (kills < 3 * wanted && !watcher.enough());
  }

  /** Runs to the end, successfully; returns how long it took. */
  static long runToEnd(List<String> args) throws Exception {
    long start = System.nanoTime();
    Process p = ChildProcessTest.start(args.toArray(String[]::new));
    String err = stderr(p);
    assertThat(p.exitValue()).as(err).isZero();
    return (System.nanoTime() - start) / 1_000_000;
  }

  /** Everything {@code p} wrote to stderr, once it has exited (at most 5 minutes). */
  static String stderr(Process p) throws Exception {
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    return err;
  }
}
