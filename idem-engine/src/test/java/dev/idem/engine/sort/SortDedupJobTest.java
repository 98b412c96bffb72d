package dev.idem.engine.sort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.JobException;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.PhaseProgress;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Edge-case inputs, exact keys that share a fingerprint, and the temporary files' life cycle. */
class SortDedupJobTest {

  /** Tiny buffers: a run every few records, merges of 3 runs at most. */
  private static final SortPlan TINY = new SortPlan(1024, 16, 600, 256, 3, 2, 600);

  @TempDir Path dir;

  private Path tmp() throws IOException {
    return Files.createDirectories(dir.resolve("tmp"));
  }

  private SortDedupSpec spec(
      Path input,
      RecordFormat format,
      KeySpec key,
      boolean keepLast,
      boolean keyOrder,
      boolean exactKey,
      BadRecordPolicy policy)
      throws IOException {
    return SortDedupSpec.builder(List.of(input.toString()), key)
        .format(format)
        .exactKey(exactKey)
        .memoryBytes(1 << 20)
        .tmp(tmp())
        .keep(keepLast ? SortDedupSpec.Keep.LAST : SortDedupSpec.Keep.FIRST)
        .order(keyOrder ? SortDedupSpec.Order.KEY : SortDedupSpec.Order.INPUT)
        .onBadRecord(policy)
        .maxRecordBytes(1 << 20)
        .compressRuns(true)
        .build();
  }

  /** A library caller gets the command's guard: an output that is an input is never emptied. */
  @Test
  void anOutputThatIsAnInputIsRefusedBeforeItIsOpened() throws IOException {
    Path in = dir.resolve("in.txt");
    Files.writeString(in, "a\nb\na\n");
    SortDedupSpec spec =
        SortDedupSpec.builder(List.of(in.toString()), new KeySpec.WholeLine())
            .format(RecordFormat.LINES)
            .memoryBytes(1 << 20)
            .tmp(tmp())
            .output(in)
            .maxRecordBytes(1 << 20)
            .compressRuns(true)
            .build();
    assertThatThrownBy(() -> run(spec, TINY, JobListener.NONE))
        .isInstanceOf(JobException.class)
        .hasMessageContaining("the output " + in);
    assertThat(Files.readString(in)).isEqualTo("a\nb\na\n");
  }

  /** The builder refuses a value where it is set, and options that disagree when it builds. */
  @Test
  void theBuilderRefusesBadValuesNamingTheOption() {
    SortDedupSpec.Builder b = SortDedupSpec.builder(List.of("in"), new KeySpec.WholeLine());
    assertThatThrownBy(() -> b.memoryBytes(1000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--memory must be at least 1m");
    assertThatThrownBy(() -> b.maxRecordBytes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--max-record-bytes");
    assertThatThrownBy(() -> SortDedupSpec.builder(List.of(), new KeySpec.WholeLine()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one input");
    assertThatThrownBy(() -> b.state(dir.resolve("st")).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--state needs -o FILE");
    SortDedupSpec defaults =
        SortDedupSpec.builder(List.of("in.tsv"), KeySpec.column("name")).build();
    assertThat(defaults.format()).isEqualTo(RecordFormat.TSV);
    assertThat(defaults.header()).isTrue();
    assertThat(defaults.memoryBytes()).isEqualTo(64 << 20);
    assertThat(defaults.compressRuns()).isNull();
  }

  private byte[] run(SortDedupSpec spec, SortPlan plan, JobListener listener) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SortDedupJob.run(
        spec, plan, null, new ByteArrayInputStream(new byte[0]), out, listener, CrashPoints.NONE);
    return out.toByteArray();
  }

  private void assertTmpEmpty() throws IOException {
    try (Stream<Path> left = Files.list(tmp())) {
      assertThat(left).as("left in --tmp").isEmpty();
    }
  }

  @ParameterizedTest
  @CsvSource({
    "empty, false, false",
    "empty, true, true",
    "one, false, false",
    "one, true, true",
    "duplicates, false, false",
    "duplicates, true, false",
    "duplicates, false, true",
    "unique, false, false",
    "unique, true, false",
    "unique, false, true",
    "unique, true, true",
  })
  void edgeCaseInputsMatchTheReference(String shape, boolean keepLast, boolean keyOrder)
      throws IOException {
    StringBuilder sb = new StringBuilder();
    switch (shape) {
      case "one" -> sb.append("only");
      case "duplicates" -> sb.append("same\n".repeat(500));
      case "unique" -> {
        for (int i = 0; i < 2000; i++) {
          sb.append("line ").append(i * 7919 % 2000).append('\n');
        }
      }
      default -> {}
    }
    byte[] input = sb.toString().getBytes(StandardCharsets.US_ASCII);
    Path in = Files.write(dir.resolve("in.txt"), input);
    for (boolean exact : new boolean[] {false, true}) {
      byte[] out =
          run(
              spec(
                  in,
                  RecordFormat.LINES,
                  new KeySpec.WholeLine(),
                  keepLast,
                  keyOrder,
                  exact,
                  new BadRecordPolicy.Fail()),
              TINY,
              JobListener.NONE);
      assertThat(out)
          .isEqualTo(SortDedupReference.expected(input, l -> l, keepLast, keyOrder, exact));
      assertTmpEmpty();
    }
  }

  @Test
  void exactKeysWithTheSameFingerprintSlotsStayDistinct() throws IOException {
    // with exact keys, hi and lo are the key's first 16 bytes: keys sharing them tie there, as
    // two keys with one fingerprint would, and must still be told apart by their bytes
    String p = "same-first-16-by";
    String[] keys = {p + "tes-A", p + "tes-B", p + "tes-A", p, p + "\u0000", p};
    List<RunFile> runs = new ArrayList<>();
    for (int half = 0; half < 2; half++) {
      RunBuffer b = new RunBuffer(RunKind.EXACT_KEY, 1 << 16, false, 32);
      for (int i = half * 3; i < half * 3 + 3; i++) {
        byte[] k = keys[i].getBytes(StandardCharsets.UTF_8);
        byte[] record = ("record " + i + "\n").getBytes(StandardCharsets.UTF_8);
        assertThat(b.add(0, 0, i, k, 0, k.length, record, 0, record.length, false)).isTrue();
      }
      try (RunWriter w = new RunWriter(tmp().resolve("run" + half), RunKind.EXACT_KEY, 256, null)) {
        b.drainSorted(w);
        runs.add(w.finish());
      }
    }
    List<String> merged = new ArrayList<>();
    RunMerger.merge(
        runs,
        256,
        false,
        true,
        (hi, lo, ord, key, ko, kl, rec, ro, rl) ->
            merged.add(new String(rec, ro, rl, StandardCharsets.UTF_8).strip()),
        n -> {});
    // byte order of the keys: p, p\0, p+tes-A (record 0, not 2), p+tes-B
    assertThat(merged).containsExactly("record 3", "record 4", "record 0", "record 1");
  }

  @Test
  void aBadRecordUnderFailStopsNamingFileAndLineAndLeavesNothingBehind() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      sb.append("{\"id\":").append(i % 50).append("}\n");
    }
    sb.append("{\"id\":\n");
    Path in = Files.writeString(dir.resolve("in.jsonl"), sb.toString());
    SortDedupSpec spec =
        spec(
            in,
            RecordFormat.JSONL,
            KeySpec.jsonField("id", false),
            false,
            false,
            false,
            new BadRecordPolicy.Fail());
    assertThatThrownBy(() -> run(spec, TINY, JobListener.NONE))
        .isInstanceOf(BadRecordException.class)
        .hasMessageStartingWith(in + ":301: malformed JSON")
        .hasMessageContaining("rerun with --on-bad-record skip");
    assertTmpEmpty();
  }

  @Test
  void aFailureInTheMiddleOfAMergeLeavesNothingBehind() throws IOException {
    Path in = halfRepeatedLines();
    List<Integer> passesSeen = new ArrayList<>();
    JobListener failing =
        new JobListener() {
          @Override
          public void progress(PhaseProgress p) {
            if (!p.phase().startsWith("merge ")) {
              return;
            }
            int pass = Integer.parseInt(p.phase().split(" ")[1]);
            passesSeen.add(pass);
            if (pass == 2) {
              try (Stream<Path> files = Files.walk(dir.resolve("tmp"))) {
                assertThat(files.filter(f -> f.getFileName().toString().startsWith("run-")))
                    .as("runs on disk mid-merge")
                    .isNotEmpty();
              } catch (IOException e) {
                throw new RuntimeException(e);
              }
              throw new IllegalStateException("disk pulled out");
            }
          }
        };
    assertThatThrownBy(() -> run(wholeLines(in), TINY, failing)).hasMessage("disk pulled out");
    assertThat(passesSeen).contains(1, 2);
    assertTmpEmpty();
  }

  /**
   * A resume refused because an input changed releases its state: a library caller that puts the
   * input back resumes in the same process, rather than find the state locked by the refused run.
   */
  @Test
  void aRefusedResumeLeavesItsStateUnlocked() throws IOException {
    // past the first 64 KiB, so that the resume's check of what was read refuses it, not the
    // input's identity when the state is opened
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 40_000; i++) {
      lines.append(String.format(java.util.Locale.ROOT, "%06d%n", i % 20_000));
    }
    Path in = Files.writeString(dir.resolve("big.txt"), lines.toString());
    byte[] original = Files.readAllBytes(in);
    SortDedupSpec spec =
        SortDedupSpec.builder(List.of(in.toString()), new KeySpec.WholeLine())
            .memoryBytes(1 << 20)
            .tmp(tmp())
            .state(dir.resolve("st"))
            .output(dir.resolve("out.txt"))
            .build();
    JobListener stopsInTheMerge =
        new JobListener() {
          @Override
          public void progress(PhaseProgress p) {
            if (p.phase().startsWith("merge ")) {
              throw new IllegalStateException("killed");
            }
          }
        };
    assertThatThrownBy(() -> run(spec, TINY, stopsInTheMerge)).hasMessage("killed");
    byte[] changed = original.clone();
    changed[200_002] = 'X';
    Files.write(in, changed);
    assertThatThrownBy(() -> run(spec, TINY, JobListener.NONE))
        .as("a changed input refuses the resume")
        .isInstanceOf(IOException.class)
        .hasMessageContaining(in.toString())
        .hasMessageNotContaining("in use");
    Files.write(in, original);
    run(spec, TINY, JobListener.NONE);
    assertThat(Files.readAllLines(dir.resolve("out.txt"))).hasSize(20_000);
  }

  @Test
  void everyMergePassReportsItsEndSoItsBarReachesAHundredPercent() throws IOException {
    Path in = halfRepeatedLines();
    java.util.Map<String, long[]> last = new java.util.LinkedHashMap<>();
    JobListener recording =
        new JobListener() {
          @Override
          public void progress(PhaseProgress p) {
            if (p.phase().startsWith("merge ")) {
              last.put(p.phase(), new long[] {p.done(), p.total()});
            }
          }
        };
    run(wholeLines(in), TINY, recording);
    assertThat(last).hasSizeGreaterThan(1);
    last.forEach(
        (pass, doneTotal) ->
            assertThat(doneTotal[0]).as("pass %s ends at its total", pass).isEqualTo(doneTotal[1]));
  }

  /** 3,000 lines, each of 1,500 keys twice: enough for several runs and passes with TINY. */
  private Path halfRepeatedLines() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 3000; i++) {
      sb.append(i % 1500).append('\n');
    }
    return Files.writeString(dir.resolve("in.txt"), sb.toString());
  }

  private SortDedupSpec wholeLines(Path in) throws IOException {
    return spec(
        in,
        RecordFormat.LINES,
        new KeySpec.WholeLine(),
        false,
        false,
        false,
        new BadRecordPolicy.Fail());
  }

  @Test
  void notEnoughRoomInTmpIsRefusedBeforeAnyWork() throws IOException {
    Path in = Files.writeString(dir.resolve("in.txt"), "some line\n".repeat(1000));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThatThrownBy(
            () ->
                SortDedupJob.run(
                    spec(
                        in,
                        RecordFormat.LINES,
                        new KeySpec.WholeLine(),
                        false,
                        false,
                        false,
                        new BadRecordPolicy.Fail()),
                    TINY,
                    5000L,
                    new ByteArrayInputStream(new byte[0]),
                    out,
                    JobListener.NONE,
                    CrashPoints.NONE))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("--tmp " + tmp())
        .hasMessageContaining("4.9 KiB free")
        .hasMessageContaining("needs about 33.2 KiB"); // 10,000 bytes, 1,000 records of 10
    assertThat(out.size()).isZero();
    assertTmpEmpty();
  }

  @Test
  void autoCompressionCompressesOnlyWhenTmpIsShortOfRoomForPlainRuns() throws IOException {
    Path in = Files.writeString(dir.resolve("in.txt"), "some line\n".repeat(1000));
    // 10,000 input bytes: plain runs in input order need ~43 KiB (+ a quarter), LZ4 ~33 KiB
    for (long usable : new long[] {40_000L, 1L << 30}) {
      SortDedupSpec auto =
          SortDedupSpec.builder(List.of(in.toString()), new KeySpec.WholeLine())
              .format(RecordFormat.LINES)
              .memoryBytes(1 << 20)
              .tmp(tmp())
              .maxRecordBytes(1 << 20)
              .build();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      SortDedupResult r =
          SortDedupJob.run(
              auto,
              TINY,
              usable,
              new ByteArrayInputStream(new byte[0]),
              out,
              JobListener.NONE,
              CrashPoints.NONE);
      assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("some line\n");
      assertThat(r.runsCompressed())
          .as("compressed with %d bytes free", usable)
          .isEqualTo(usable < (1L << 30));
    }
    assertTmpEmpty();
  }

  @Test
  void leftoversOfDeadJobsAreRemovedAndLiveOnesKept() throws IOException {
    Path dead = Files.createDirectories(tmp().resolve(RunDirectory.PREFIX + "dead"));
    Files.writeString(dead.resolve("LOCK"), "12345\n");
    Files.write(dead.resolve("run-000001"), new byte[3000]);
    Path starting = Files.createDirectories(tmp().resolve(RunDirectory.PREFIX + "starting"));
    Files.createFile(starting.resolve("LOCK")); // empty: its owner has not locked it yet
    Path unrelated = Files.createDirectories(tmp().resolve(RunDirectory.PREFIX + "nolock"));
    Path live = Files.createDirectories(tmp().resolve(RunDirectory.PREFIX + "live"));
    Files.writeString(live.resolve("LOCK"), "1\n");
    Path in = Files.writeString(dir.resolve("in.txt"), "a\nb\na\n");
    List<String> warnings = new ArrayList<>();
    try (FileChannel ch = FileChannel.open(live.resolve("LOCK"), StandardOpenOption.WRITE)) {
      ch.lock();
      run(
          spec(
              in,
              RecordFormat.LINES,
              new KeySpec.WholeLine(),
              false,
              false,
              false,
              new BadRecordPolicy.Fail()),
          TINY,
          new JobListener() {
            @Override
            public void warning(String message) {
              warnings.add(message);
            }
          });
    }
    assertThat(dead).doesNotExist();
    assertThat(starting).exists();
    assertThat(unrelated).exists();
    assertThat(live).exists();
    assertThat(warnings)
        .singleElement()
        .asString()
        .contains("removed 2.9 KiB")
        .contains(dead.toString());
  }
}
