package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real command in its own JVM: the memory budget holds under a heap of a few MiB, and the
 * temporary runs go away on SIGTERM (as on Ctrl-C) and, after a SIGKILL, at the next start.
 */
class SortDedupProcessTest {

  private static final int RECORDS = 400_000; // about 31 MiB of JSON Lines

  @TempDir static Path shared;
  static Path input;
  static Path expected;

  @TempDir Path dir;

  /** JSON Lines where ~30 % of records repeat an earlier id with other fields. */
  @BeforeAll
  static void generate() throws IOException {
    input = shared.resolve("in.jsonl");
    expected = shared.resolve("expected.jsonl");
    Random random = new Random(42);
    BitSet seen = new BitSet();
    int next = 0;
    try (OutputStream in = new BufferedOutputStream(Files.newOutputStream(input), 1 << 16);
        OutputStream out = new BufferedOutputStream(Files.newOutputStream(expected), 1 << 16)) {
      for (int i = 0; i < RECORDS; i++) {
        int key = next == 0 || random.nextDouble() >= 0.3 ? next++ : random.nextInt(next);
        byte[] line =
            ("{\"id\":\"k"
                    + key
                    + "\",\"n\":"
                    + i
                    + ",\"text\":\""
                    + "lorem ipsum ".repeat(1 + i % 6)
                    + "\"}\n")
                .getBytes(StandardCharsets.US_ASCII);
        in.write(line);
        if (!seen.get(key)) {
          seen.set(key);
          out.write(line);
        }
      }
    }
  }

  private static String finish(Process p) throws Exception {
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    return new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  private static List<Path> leftovers(Path tmp) throws IOException {
    try (Stream<Path> s = Files.list(tmp)) {
      return s.toList();
    }
  }

  @Test
  void thirtyTimesTheBudgetInAHeapOfTenMib() throws Exception {
    Path tmp = Files.createDirectory(dir.resolve("tmp"));
    Path out = dir.resolve("out.jsonl");
    Path stats = dir.resolve("stats.json");
    assertThat(Files.size(input)).isGreaterThan(30L << 20);
    // 10 MiB of heap: twice the 1 MiB budget plus the JVM's own few MiB and picocli's model of
    // every command (8 MiB stopped being enough when near-dup's options joined it)
    Process p =
        ChildProcessTest.startWithHeap(
            "10m",
            "sort-dedup",
            "--key",
            "id",
            "--memory",
            "1m",
            "--tmp",
            tmp.toString(),
            "-o",
            out.toString(),
            "--stats-json",
            stats.toString(),
            input.toString());
    String err = finish(p);
    assertThat(p.exitValue()).as(err).isZero();
    assertThat(Files.mismatch(out, expected)).as("first byte that differs").isEqualTo(-1);
    JsonNode s = new ObjectMapper().readTree(stats.toFile());
    assertThat(s.get("records").asLong()).isEqualTo(RECORDS);
    // more runs than the last merge by key can open: a merge pass by key before the last one,
    // then at least one by position
    assertThat(s.get("merge_passes_by_key").asInt()).isGreaterThanOrEqualTo(2);
    assertThat(s.get("merge_passes").asInt()).isGreaterThanOrEqualTo(3);
    assertThat(leftovers(tmp)).isEmpty();
  }

  /** Starts a job on the big input and waits until it has written a run. */
  private static Process startAndWaitForRuns(Path tmp, Path out) throws Exception {
    Process p =
        ChildProcessTest.start(
            "sort-dedup",
            "--key",
            "id",
            "--memory",
            "1m",
            "--tmp",
            tmp.toString(),
            "-o",
            out.toString(),
            input.toString());
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (System.nanoTime() < deadline && p.isAlive()) {
      try (Stream<Path> files = Files.walk(tmp)) {
        if (files.anyMatch(f -> f.getFileName().toString().startsWith("run-"))) {
          return p;
        }
      }
      Thread.sleep(5);
    }
    p.destroyForcibly();
    throw new AssertionError("no run appeared in " + tmp + "; alive: " + p.isAlive());
  }

  @Test
  void sigtermRemovesTheRuns() throws Exception {
    Path tmp = Files.createDirectory(dir.resolve("tmp"));
    Process p = startAndWaitForRuns(tmp, dir.resolve("out.jsonl"));
    p.destroy(); // SIGTERM: shutdown hooks run, as on Ctrl-C (SIGINT)
    assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).isEqualTo(128 + 15);
    assertThat(leftovers(tmp)).isEmpty();
  }

  @Test
  void runsOfAKilledJobAreRemovedByTheNextOne() throws Exception {
    Path tmp = Files.createDirectory(dir.resolve("tmp"));
    Process p = startAndWaitForRuns(tmp, dir.resolve("out.jsonl"));
    p.destroyForcibly(); // SIGKILL: nothing of the job runs any more
    assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).isEqualTo(128 + 9);
    List<Path> left = leftovers(tmp);
    assertThat(left).singleElement().asString().contains("idem-sort-dedup-");

    Path small = Files.writeString(dir.resolve("small.txt"), "a\nb\na\n");
    Cli.Result next =
        Cli.run("sort-dedup", "--whole-line", "--tmp", tmp.toString(), small.toString());
    assertThat(next.status()).as(next.err()).isZero();
    assertThat(next.out()).isEqualTo("a\nb\n");
    assertThat(next.err())
        .contains("idem sort-dedup: warning: removed ")
        .contains(left.get(0).toString())
        .contains("did not finish");
    assertThat(leftovers(tmp)).isEmpty();
  }
}
