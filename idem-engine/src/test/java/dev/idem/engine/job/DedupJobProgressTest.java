package dev.idem.engine.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.filter.FilterType;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.records.VerifyInputs;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.run.PhaseProgress;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a job tells its {@link dev.idem.engine.run.JobListener} about its progress: a resumed job's
 * steps before it reads on, and the partitioned method's passes, each ending at its total, and the
 * records' progress counted from where the run starts, so a bar's speed and ETA are this run's.
 */
class DedupJobProgressTest {

  @TempDir Path dir;

  /** One call to the listener. */
  private record Heard(String what, long done, long total, long records) {}

  private static final class Recording implements JobListener {
    final List<Heard> heard = new ArrayList<>();

    /** Each phase by its name; the records' phase as "progress". */
    @Override
    public void progress(PhaseProgress p) {
      String what =
          p.phase().equals(DedupJob.DEDUP) ? "progress" : p.phase().toUpperCase(Locale.ROOT);
      heard.add(new Heard(what, p.done(), p.total(), p.count("records")));
    }

    List<Heard> of(String what) {
      return heard.stream().filter(h -> h.what().equals(what)).toList();
    }

    /** The kinds heard, each once, in the order first heard. */
    List<String> order() {
      return heard.stream().map(Heard::what).distinct().toList();
    }
  }

  /** Kills a run at the {@code n}-th commit of a checkpoint. */
  private static CrashPoints killAtCommit(int n) {
    int[] commits = {0};
    return step -> {
      if (step == DedupStep.COMMITTED && ++commits[0] == n) {
        throw new KilledForTest();
      }
    };
  }

  private static final class KilledForTest extends Error {
    KilledForTest() {
      super("killed for the test", null, false, false);
    }
  }

  @Test
  void aResumedJobReportsItsRestoreAndCheckThenCountsFromWhereItResumes() throws IOException {
    List<String> inputs = inputs(3, 3_000);
    DedupJobSpec spec = spec(inputs, ExactTierChoice.MEMORY, VerifyInputs.FULL);
    assertThatThrownBy(() -> run(spec, new Recording(), killAtCommit(40)))
        .isInstanceOf(KilledForTest.class);

    Recording resumed = new Recording();
    JobResult r = run(spec, resumed, CrashPoints.NONE);

    long resumedAt = r.resumedAtRecord();
    assertThat(resumedAt).as("the kill came in the second input").isBetween(3_001L, 5_999L);
    assertThat(resumed.order()).containsExactly("RESTORE", "CHECK", "progress");
    Heard restoreEnd = last(resumed.of("RESTORE"));
    assertThat(restoreEnd.done()).isEqualTo(restoreEnd.total()).isPositive();
    long firstInput = Files.size(Path.of(inputs.get(0)));
    long resumedAtByte = bytesOfLines(Path.of(inputs.get(1)), resumedAt - 3_000);
    Heard checkEnd = last(resumed.of("CHECK"));
    assertThat(checkEnd.total()).as("the second input up to the resume").isEqualTo(resumedAtByte);
    assertThat(checkEnd.done()).isEqualTo(checkEnd.total());

    long total = inputs.stream().mapToLong(DedupJobProgressTest::size).sum();
    Heard first = resumed.of("progress").get(0);
    assertThat(first.records()).as("before any record is read").isEqualTo(resumedAt);
    assertThat(first.done()).isBetween(firstInput + resumedAtByte, total);
    assertThat(first.total()).isEqualTo(total);
    assertThat(last(resumed.of("progress")).done()).isEqualTo(total);
  }

  @Test
  void thePartitionedMethodReportsItsTwoPassesBeforeTheRecords() throws IOException {
    List<String> inputs = inputs(2, 2_000);
    Recording heard = new Recording();
    run(spec(inputs, ExactTierChoice.PARTITIONED, VerifyInputs.SAMPLE), heard, CrashPoints.NONE);

    assertThat(heard.order()).containsExactly("PARTITION", "JUDGE", "progress");
    long total = inputs.stream().mapToLong(DedupJobProgressTest::size).sum();
    assertThat(last(heard.of("PARTITION"))).isEqualTo(new Heard("PARTITION", total, total, -1));
    Heard judged = last(heard.of("JUDGE"));
    assertThat(judged.done()).isEqualTo(judged.total()).isPositive();
    assertThat(heard.of("progress").get(0).done()).as("the second read starts at 0").isZero();
  }

  private static Heard last(List<Heard> heard) {
    assertThat(heard).isNotEmpty();
    return heard.get(heard.size() - 1);
  }

  private JobResult run(DedupJobSpec spec, JobListener listener, CrashPoints crash)
      throws IOException {
    return DedupJob.run(
        spec, InputStream.nullInputStream(), OutputStream.nullOutputStream(), listener, crash);
  }

  /** {@code files} inputs of {@code lines} lines each, a third of them repeats. */
  private List<String> inputs(int files, int lines) throws IOException {
    List<String> names = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      int first = f * lines;
      Path p = dir.resolve("in-" + f + ".txt");
      Files.writeString(
          p,
          IntStream.range(first, first + lines)
              .mapToObj(i -> "line " + (i - i % 3 == i ? i : i - 1) + "\n")
              .collect(Collectors.joining()));
      names.add(p.toString());
    }
    return names;
  }

  /** The bytes of the first {@code lines} lines of {@code file}. */
  private static long bytesOfLines(Path file, long lines) throws IOException {
    return Files.readAllLines(file).stream().limit(lines).mapToLong(l -> l.length() + 1).sum();
  }

  private static long size(String path) {
    try {
      return Files.size(Path.of(path));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private DedupJobSpec spec(List<String> inputs, ExactTierChoice store, VerifyInputs verify) {
    return DedupJobSpec.builder(inputs)
        // a filter in front of the set: the journal since its snapshot replayed
        .filterType(FilterType.BLOCKED)
        .expectedKeys(ExpectedKeys.of(100_000))
        .fpp(0.01)
        .seed(7)
        .exactTier(store)
        .state(dir.resolve("state"))
        .checkpointRecords(100)
        .checkpointInterval(Duration.ofHours(1))
        .output(dir.resolve("out.txt"))
        .maxRecordBytes(1 << 20)
        .rocksDbCacheBytes(8L << 20)
        .verifyInputs(verify)
        .threads(1)
        .build();
  }
}
