package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python pipeline worker of {@code examples/pipeline/worker.py}, on redis-py, SIGKILLed again
 * and again, and the server under it too: its output must be byte for byte an uninterrupted run's,
 * every document exactly once. CI: 5 worker kills and 3 server kills; by hand {@code
 * -Didem.kills=20} (and half as many server kills). Needs python3 with redis-py (Debian's
 * python3-redis, or pip install redis): skipped with a message without it, failed in CI.
 */
class PythonWorkerTest {

  private static final Path WORKER = Path.of("..", "examples", "pipeline", "worker.py");
  private static final int DOCS = 30_000;

  @TempDir Path dir;

  static boolean redisPyMissing() {
    try {
      Process p =
          new ProcessBuilder("python3", "-c", "import redis")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      return !p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0;
    } catch (IOException | InterruptedException e) {
      return true;
    }
  }

  private Process worker(ServerProcess server, Path out, String key) throws IOException {
    return new ProcessBuilder(
            "python3",
            WORKER.toString(),
            "--port",
            Integer.toString(server.port),
            "--output",
            out.toString(),
            "--key",
            key,
            "--docs",
            Integer.toString(DOCS),
            "--batch",
            "200")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("worker.log").toFile()))
        .start();
  }

  @Test
  void killedWithItsServerTheWorkerStillWritesEveryDocumentExactlyOnce() throws Exception {
    boolean missing = redisPyMissing();
    if (missing && "true".equals(System.getenv("CI"))) {
      throw new AssertionError(
          "python3 with redis-py is needed in CI (.ci/run installs python3-redis)");
    }
    assumeTrue(!missing, "skipped: python3 with redis-py is not installed (pip install redis)");
    int workerKills = Integer.getInteger("idem.kills", 5);
    int serverKills = (workerKills + 1) / 2;
    try (ServerProcess server =
        new ServerProcess(dir.resolve("state"), dir.resolve("server.log")).start()) {
      Path reference = dir.resolve("reference.tsv");
      long t0 = System.nanoTime();
      Process ref = worker(server, reference, "reference");
      assertThat(ref.waitFor(5, TimeUnit.MINUTES)).isTrue();
      assertThat(ref.exitValue()).as(log()).isZero();
      long fullMillis = (System.nanoTime() - t0) / 1_000_000;
      List<String> lines = Files.readAllLines(reference);
      assertThat(lines).doesNotHaveDuplicates().hasSizeGreaterThan(DOCS / 2);

      Path out = dir.resolve("features.tsv");
      Random random = new Random(20270101L);
      int wk = 0;
      int sk = 0;
      Process w = worker(server, out, "worker");
      while (wk < workerKills || sk < serverKills) {
        Thread.sleep(50 + random.nextInt((int) Math.max(100, fullMillis / 2)));
        boolean killServer = sk < serverKills && (wk >= workerKills || random.nextBoolean());
        if (killServer) {
          server.kill(); // the worker sees its connection go, and resumes from the last commit
          sk++;
          server.start();
        } else {
          w.destroyForcibly(); // SIGKILL
          w.waitFor(60, TimeUnit.SECONDS);
          wk++;
        }
        if (!w.isAlive()) {
          if (w.exitValue() == 0 && !killServer) {
            // finished before the kill: start over, so the next kills land in work
            assertThat(Files.readAllLines(out)).isEqualTo(lines);
          }
          w = worker(server, out, "worker");
        }
      }
      assertThat(w.waitFor(5, TimeUnit.MINUTES)).isTrue();
      assertThat(w.exitValue()).as(log()).isZero();
      List<String> got = Files.readAllLines(out);
      assertThat(got)
          .as("after %d worker and %d server kills: lines twice", wk, sk)
          .doesNotHaveDuplicates();
      assertThat(got)
          .as("after %d worker and %d server kills: lines missing", wk, sk)
          .containsAll(lines);
      assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(reference));
      System.out.printf(
          "python worker: %d worker kills, %d server kills (uninterrupted run %d ms)%n",
          wk, sk, fullMillis);
    }
  }

  private String log() throws IOException {
    return Files.readString(dir.resolve("worker.log"));
  }
}
