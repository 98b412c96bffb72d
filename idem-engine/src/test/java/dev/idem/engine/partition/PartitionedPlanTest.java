package dev.idem.engine.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprinter;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.RecordSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;

/**
 * The partitioned method's verdicts are those of one in-memory set over the whole input, whatever
 * the budget: one partition, many, or partitions split again because the record count was guessed
 * far too low; with and without checkpoints.
 */
class PartitionedPlanTest {

  private Path dir;

  @BeforeTry
  void makeDirectory() throws IOException {
    dir = Files.createTempDirectory("idem-plan-test-");
  }

  @AfterTry
  void removeDirectory() throws IOException {
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Property(tries = 25)
  void theBitsMarkExactlyTheLaterOccurrences(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 200) int budgetKiB,
      @ForAll @IntRange(min = 1, max = 100_000) int recordsGuess,
      @ForAll boolean durable,
      @ForAll @IntRange(min = 1, max = 3) int files)
      throws IOException {
    Random r = new Random(seed);
    List<List<String>> inputs = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      inputs.add(lines(r, r.nextInt(30_000)));
    }
    List<InputFile> in = write(inputs);
    try (DuplicateBits bits = plan(in, budgetKiB << 10, recordsGuess, durable)) {
      Set<String> seen = new HashSet<>();
      long ordinal = 0;
      for (List<String> file : inputs) {
        for (String line : file) {
          boolean repeat = !seen.add(line); // whole lines: an empty line is a key too
          assertThat(bits.isDuplicate(ordinal))
              .as("record %d: %s", ordinal, line)
              .isEqualTo(repeat);
          ordinal++;
        }
      }
      assertThat(bits.records()).isEqualTo(ordinal);
    }
    try (var left = Files.list(dir.resolve("plan"))) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .as("the partition files are gone once judged")
          .noneMatch(n -> n.endsWith(".fp"));
    }
  }

  @Property(tries = 5)
  void aResumeOverAnInputThatChangedIsRefused(@ForAll long seed) throws IOException {
    Random r = new Random(seed);
    List<InputFile> in = write(List.of(lines(r, 1000)));
    plan(in, 64 << 10, 1000, true).close();
    Files.writeString(
        Path.of(in.get(0).path()), "one more line\n", java.nio.file.StandardOpenOption.APPEND);
    List<InputFile> now = InputFile.expand(List.of(in.get(0).path()));
    assertThatThrownBy(() -> plan(now, 64 << 10, 1000, true))
        .isInstanceOf(JobException.class)
        .hasMessageContaining("changed since the state was created")
        .hasMessageContaining("start over with a new --state");
  }

  /** A partition file shorter than its checkpoint says: damage, refused before any reading. */
  @net.jqwik.api.Example
  void aPartitionFileCutBelowItsCheckpointIsRefused() throws IOException {
    List<InputFile> in = write(List.of(lines(new Random(1), 100)));
    Path planDir = Files.createDirectories(dir.resolve("plan"));
    long[] lengths = {10L * PartitionFiles.ENTRY_BYTES};
    PlanProgress.start(1, in)
        .read(dev.idem.engine.run.InputPosition.START, 10, lengths, false)
        .save(planDir);
    Files.write(PartitionFiles.path(planDir, 0, 0), new byte[5 * PartitionFiles.ENTRY_BYTES]);
    assertThatThrownBy(() -> plan(in, 64 << 10, 100, true))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("part-0-00000.fp")
        .hasMessageContaining("shorter than the 240 its last checkpoint made durable");
  }

  @net.jqwik.api.Example
  void verdictBitsOfAnotherRecordCountAreRefused() throws IOException {
    Path file = dir.resolve("bits");
    DuplicateBits.open(file, 100).close(); // 13 bytes
    assertThatThrownBy(() -> DuplicateBits.open(file, 1000))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("13 bytes, not the 125 of 1000 records");
  }

  private static RecordSource.Settings settings() {
    return new RecordSource.Settings(
        RecordFormat.LINES,
        false,
        KeyExtractor.of(new KeySpec.WholeLine(), RecordFormat.LINES),
        Fingerprinter.xxh3(),
        false,
        1 << 20,
        null);
  }

  private DuplicateBits plan(List<InputFile> in, long budget, long guess, boolean durable)
      throws IOException {
    return PartitionedPlan.run(
        dir.resolve("plan"),
        durable,
        in,
        settings(),
        budget,
        guess,
        997,
        Duration.ofHours(1),
        dev.idem.engine.records.VerifyInputs.SAMPLE,
        dev.idem.engine.run.JobListener.NONE,
        dev.idem.engine.run.CrashPoints.NONE);
  }

  private List<InputFile> write(List<List<String>> files) throws IOException {
    List<String> names = new ArrayList<>();
    for (int f = 0; f < files.size(); f++) {
      Path p = dir.resolve("in-" + f + ".txt");
      Files.write(p, String.join("\n", files.get(f)).concat("\n").getBytes(StandardCharsets.UTF_8));
      names.add(p.toString());
    }
    return InputFile.expand(names);
  }

  /** Hot keys and a long tail, some empty lines, unicode. */
  private static List<String> lines(Random r, int n) {
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      double x = r.nextDouble();
      out.add(x < 0.03 ? "" : "k\u00e9" + (int) (n * Math.pow(r.nextDouble(), 2)));
    }
    return out;
  }
}
