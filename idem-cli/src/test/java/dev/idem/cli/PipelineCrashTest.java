package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline worker of {@code examples/pipeline}, a real child process on the library's durable
 * deduplicator, killed with SIGKILL at random moments (in its start, between documents, inside
 * commits) and restarted until it finishes: its output must equal an uninterrupted run's, every
 * document's features exactly once.
 *
 * <p>CI runs 8 kills (about half a minute); by hand, {@code -Didem.kills=300} for a long soak.
 */
class PipelineCrashTest {

  private static final Path WORKER = Path.of("..", "examples", "pipeline", "PipelineWorker.java");
  private static final int DOCUMENTS = 400_000;

  private static final int KILLED = -1;

  @TempDir static Path dir;

  private static String log() throws IOException {
    return Files.readString(dir.resolve("worker.log"));
  }

  /** The worker compiled once, so that a run's time is its work and not the compiler's. */
  private static Path classes;

  @BeforeAll
  static void compileTheWorker() throws IOException {
    classes = dir.resolve("classes");
    Files.createDirectories(classes);
    int status =
        ToolProvider.getSystemJavaCompiler()
            .run(
                null,
                null,
                System.err,
                "-d",
                classes.toString(),
                "-cp",
                System.getProperty("java.class.path"),
                WORKER.toString());
    assertThat(status).as("javac " + WORKER).isZero();
  }

  @Test
  void killedAtRandomTheWorkerStillProcessesEveryDocumentExactlyOnce() throws Exception {
    int kills = Integer.getInteger("idem.kills", 8);
    Path reference = dir.resolve("reference.tsv");
    long started = System.nanoTime();
    assertThat(run(reference, dir.resolve("reference-state"), -1)).as("%s", log()).isZero();
    long fullMillis = (System.nanoTime() - started) / 1_000_000;
    byte[] expected = Files.readAllBytes(reference);
    assertThat(expected.length).isPositive();

    Path out = dir.resolve("features.tsv");
    Path state = dir.resolve("state");
    Random random = new Random(20261203L);
    int killed = 0;
    int finished = 0;
    while (killed < kills) {
      // anywhere from the JVM's start to past the end of an uninterrupted run
      long after = 100 + random.nextInt((int) Math.max(200, fullMillis));
      int status = run(out, state, after);
      assertThat(status).as("the worker failed: %s", log()).isIn(0, KILLED);
      if (status == 0) {
        finished++;
        // done: check, and start over, so the next kills land in work, not in "nothing to do"
        assertThat(Files.readAllBytes(out)).isEqualTo(expected);
        deleteState(state);
        Files.delete(out);
      } else {
        killed++;
      }
    }
    assertThat(run(out, state, -1)).as("%s", log()).isZero();
    assertThat(Files.readAllBytes(out)).as("after %d kills", killed).isEqualTo(expected);
    System.out.printf(
        "pipeline: %d kills, %d runs finished between them (uninterrupted run %d " + "ms)%n",
        killed, finished, fullMillis);
  }

  /** Runs the worker; with {@code killAfterMillis >= 0}, SIGKILLs it then. Returns its status. */
  private static int run(Path out, Path state, long killAfterMillis) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx256m",
                "-cp",
                classes + java.io.File.pathSeparator + System.getProperty("java.class.path"),
                "PipelineWorker",
                out.toString(),
                state.toString(),
                Integer.toString(DOCUMENTS),
                "500"));
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("worker.log").toFile())
            .start();
    if (killAfterMillis >= 0 && !p.waitFor(killAfterMillis, TimeUnit.MILLISECONDS)) {
      p.destroyForcibly(); // SIGKILL: nothing is flushed, nothing is closed
      p.waitFor(60, TimeUnit.SECONDS);
      return KILLED;
    }
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the worker did not finish in 120 s");
    }
    return p.exitValue();
  }

  private static void deleteState(Path state) throws IOException {
    try (var walk = Files.walk(state)) {
      for (Path f : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    }
  }
}
