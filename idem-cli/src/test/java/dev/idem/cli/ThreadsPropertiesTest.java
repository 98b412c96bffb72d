package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;

/**
 * {@code --threads N} changes who judges, never what is written: for any N the output, the dropped
 * records and the counts are those of one thread, with and without a state directory, over inputs
 * of many batches with hot and cold keys, blank lines and bad records.
 */
class ThreadsPropertiesTest {

  private Path dir;

  @BeforeTry
  void makeDirectory() throws IOException {
    dir = Files.createTempDirectory("idem-threads-");
  }

  @AfterTry
  void removeDirectory() throws IOException {
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Property(tries = 12)
  void everyThreadCountWritesWhatOneThreadWrites(
      @ForAll @IntRange(min = 2, max = 9) int threads,
      @ForAll long seed,
      @ForAll boolean state,
      @ForAll boolean wholeLine)
      throws IOException {
    Path in = dir.resolve("in.jsonl");
    Files.write(in, records(new Random(seed), 40_000));
    assertThat(Files.size(in)).as("several batches of 1 MiB").isGreaterThan(1 << 20);
    Run one = run(in, 1, state, wholeLine);
    Run many = run(in, threads, state, wholeLine);
    assertThat(many.out).isEqualTo(one.out);
    assertThat(many.dropped).isEqualTo(one.dropped);
    assertThat(many.summary).isEqualTo(one.summary);
    assertThat(one.out.length).isPositive();
    assertThat(one.dropped.length).isPositive();
  }

  private record Run(byte[] out, byte[] dropped, String summary) {}

  private Run run(Path in, int threads, boolean state, boolean wholeLine) throws IOException {
    Path out = dir.resolve("out-" + threads);
    Path dropped = dir.resolve("dropped-" + threads);
    List<String> args = new ArrayList<>(List.of("dedup", "--threads", String.valueOf(threads)));
    args.addAll(wholeLine ? List.of("--whole-line") : List.of("--key", "id"));
    args.addAll(List.of("--on-bad-record", "skip", "--exact-store", "memory"));
    args.addAll(List.of("-o", out.toString(), "--dropped", dropped.toString()));
    if (state) {
      args.addAll(List.of("--state", dir.resolve("st-" + threads).toString()));
      args.addAll(List.of("--checkpoint-every", "997"));
    }
    args.add(in.toString());
    Cli.Result r = Cli.run(args.toArray(String[]::new));
    assertThat(r.status()).as(r.err()).isZero();
    return new Run(
        Files.readAllBytes(out),
        // the dropped file names the input, which is the same for both runs
        Files.readAllBytes(dropped),
        r.err().lines().findFirst().orElse("")); // the counts; later lines time the run
  }

  /** Keys skewed to a few hot ones plus a long cold tail; blanks, keyless and broken lines. */
  static byte[] records(Random r, int count) {
    java.io.ByteArrayOutputStream lines = new java.io.ByteArrayOutputStream();
    for (int i = 0; i < count; i++) {
      double x = r.nextDouble();
      String line =
          x < 0.02
              ? ""
              : x < 0.03
                  ? "{\"no\":\"key\"}"
                  : x < 0.04
                      ? "{\"id\":\"broken"
                      : "{\"id\":\"k"
                          + (int) (count * Math.pow(r.nextDouble(), 3))
                          + "\",\"n\":"
                          + (x < 0.5 ? 1 : 2)
                          + ",\"text\":\"é"
                          + "x".repeat(r.nextInt(40))
                          + "\"}";
      lines.writeBytes((line + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return lines.toByteArray();
  }
}
