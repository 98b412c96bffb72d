package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --exact-store partitioned} writes what the in-memory set writes (output, dropped records,
 * quarantined records, counts), over several partitions, with and without a state directory; the
 * automatic choice takes it when the set does not fit {@code --memory}; and it refuses what it
 * cannot do. Its kills are in {@link CrashTest}.
 */
class PartitionedMethodTest {

  private Path dir;

  @BeforeTry
  void makeDirectory() throws IOException {
    dir = Files.createTempDirectory("idem-partitioned-");
  }

  @AfterTry
  void removeDirectory() throws IOException {
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Property(tries = 6)
  void writesWhatTheInMemorySetWrites(
      @ForAll long seed, @ForAll boolean state, @ForAll boolean wholeLine) throws IOException {
    Path in = dir.resolve("in.jsonl");
    // 120 k records: at --memory 33m (a 1 MiB set) three or more partitions
    Files.write(in, ThreadsPropertiesTest.records(new Random(seed), 120_000));
    Run memory = run(in, "memory", state, wholeLine);
    Run partitioned = run(in, "partitioned", state, wholeLine);
    assertThat(partitioned.summary).contains("exact tier partitioned");
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("the keys go to (\\d+) partition")
            .matcher(partitioned.summary);
    assertThat(m.find()).as(partitioned.summary).isTrue();
    assertThat(Integer.parseInt(m.group(1))).as("partitions").isGreaterThan(1);
    assertThat(partitioned.out).isEqualTo(memory.out);
    assertThat(partitioned.dropped).isEqualTo(memory.dropped);
    assertThat(partitioned.quarantined).isEqualTo(memory.quarantined);
    assertThat(partitioned.counts).isEqualTo(memory.counts);
    assertThat(memory.dropped.length).isPositive();
  }

  private record Run(
      byte[] out, byte[] dropped, byte[] quarantined, String counts, String summary) {}

  private Run run(Path in, String store, boolean state, boolean wholeLine) throws IOException {
    Path out = dir.resolve("out-" + store);
    Path dropped = dir.resolve("dropped-" + store);
    Path bad = dir.resolve("bad-" + store);
    List<String> args = new ArrayList<>(List.of("dedup", "--exact-store", store));
    args.addAll(wholeLine ? List.of("--whole-line") : List.of("--key", "id"));
    args.addAll(List.of("--memory", "33m", "--on-bad-record", "quarantine=" + bad));
    args.addAll(List.of("-o", out.toString(), "--dropped", dropped.toString()));
    if (state) {
      args.addAll(List.of("--state", dir.resolve("st-" + store).toString()));
      args.addAll(List.of("--checkpoint-every", "4999"));
    }
    args.add(in.toString());
    Cli.Result r = Cli.run(args.toArray(String[]::new));
    assertThat(r.status()).as(r.err()).isZero();
    return new Run(
        Files.readAllBytes(out),
        Files.readAllBytes(dropped),
        Files.exists(bad) ? Files.readAllBytes(bad) : new byte[0],
        r.err().lines().filter(l -> l.contains(" records, ")).findFirst().orElse(""),
        r.err());
  }

  @Test
  void autoTakesThePartitionedMethodWhenTheSetDoesNotFitTheMemory(@TempDir Path tmp)
      throws IOException {
    Path in = tmp.resolve("in.txt");
    Files.write(in, ThreadsPropertiesTest.records(new Random(3), 50_000));
    Path out = tmp.resolve("out.txt");
    Cli.Result small =
        Cli.run("dedup", "--whole-line", "--memory", "33m", "-o", out.toString(), in.toString());
    assertThat(small.status()).as(small.err()).isZero();
    assertThat(small.err()).contains("exact tier partitioned").contains("partition file(s)");
    Cli.Result large =
        Cli.run("dedup", "--whole-line", "--memory", "1g", "-o", out.toString(), in.toString());
    assertThat(large.err()).contains("exact tier memory");
  }

  @Test
  void standardInputIsRefusedWithTheReasonAndTheAlternative() {
    Cli.Result r =
        Cli.runWithInput("a\nb\na\n", "dedup", "--whole-line", "--exact-store", "partitioned", "-");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err())
        .contains("cannot be used on standard input")
        .contains("--exact-store rocksdb")
        .doesNotContain("Exception");
  }
}
