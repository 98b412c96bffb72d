package dev.idem.engine.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.Deduplicator;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.JobListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Batches deduplicated one by one through a history give what one reference gives: each batch's
 * first occurrences of the keys that no earlier batch had (a {@code HashSet} over all of them),
 * however the runs are killed and resumed, and a batch run again once complete changes nothing. The
 * history ends with exactly the distinct keys. Kills are in-process, at the dedup job's and the
 * history's named steps ({@link CrashPoints}); {@code HistoryCrashTest} in idem-cli kills the real
 * command.
 */
class HistoryRunPropertiesTest {

  /** A kill: the {@code occurrence}th time a run reaches {@code step}. */
  record Kill(Enum<?> step, int occurrence) {}

  /** One batch: its keys, the kills its runs meet in turn, and whether it is run again after. */
  record Batch(List<Integer> keys, List<Kill> kills, boolean runAgain) {}

  static final class SimulatedKill extends Error {
    SimulatedKill(Kill kill) {
      super("simulated kill at " + kill, null, false, false);
    }
  }

  @Provide
  Arbitrary<List<Batch>> batches() {
    Arbitrary<Enum<?>> steps =
        Arbitraries.of(
            DedupStep.RECORD_HANDLED,
            DedupStep.RECORD_HANDLED,
            DedupStep.OUTPUTS_CUT,
            DedupStep.OUTPUTS_SYNCED,
            DedupStep.COMMITTED,
            HistoryRun.Step.RUN_STARTED,
            HistoryRun.Step.RUN_RECORDED);
    Arbitrary<Kill> kill =
        Combinators.combine(steps, Arbitraries.integers().between(1, 12)).as(Kill::new);
    Arbitrary<Batch> batch =
        Combinators.combine(
                Arbitraries.integers().between(0, 40).list().ofMaxSize(30),
                kill.list().ofMaxSize(2),
                Arbitraries.integers().between(0, 4).map(n -> n == 0))
            .as(Batch::new);
    return batch.list().ofMinSize(1).ofMaxSize(5);
  }

  @Property(tries = 12)
  void batchesThroughAHistoryKeepWhatNoEarlierBatchKept(@ForAll("batches") List<Batch> batches)
      throws IOException {
    Path dir = Files.createTempDirectory("idem-history-property");
    try {
      Path history = dir.resolve("history");
      Set<Integer> seen = new HashSet<>();
      for (int b = 0; b < batches.size(); b++) {
        Batch batch = batches.get(b);
        Path input = dir.resolve("batch-" + b + ".txt");
        Files.writeString(input, lines(batch.keys()));
        DedupJobSpec spec = spec(input, dir.resolve("out-" + b + ".txt"), history, 3);
        for (Kill k : batch.kills()) {
          try {
            run(spec, killAt(k));
          } catch (SimulatedKill expected) {
            continue; // killed: the next attempt resumes
          }
          break; // this attempt never reached the kill: the run is complete
        }
        JobResult r = run(spec, CrashPoints.NONE);
        List<Integer> expected = new ArrayList<>();
        for (int key : batch.keys()) {
          if (seen.add(key)) {
            expected.add(key);
          }
        }
        byte[] out = Files.readAllBytes(spec.output());
        assertThat(new String(out, StandardCharsets.UTF_8)).isEqualTo(lines(expected));
        assertThat(r.last().stats().kept()).isEqualTo(expected.size());
        if (batch.runAgain()) {
          JobResult again = run(spec, CrashPoints.NONE);
          assertThat(again.alreadyComplete()).isTrue();
          assertThat(Files.readAllBytes(spec.output())).isEqualTo(out);
        }
      }
      assertThat(Deduplicator.describeState(history).keys()).isEqualTo(seen.size());
    } finally {
      delete(dir);
    }
  }

  private static CrashPoints killAt(Kill kill) {
    int[] count = new int[1];
    return step -> {
      if (step == kill.step() && ++count[0] == kill.occurrence()) {
        throw new SimulatedKill(kill);
      }
    };
  }

  static JobResult run(DedupJobSpec spec, CrashPoints crash) throws IOException {
    return DedupJob.run(
        spec,
        InputStream.nullInputStream(),
        OutputStream.nullOutputStream(),
        JobListener.NONE,
        crash);
  }

  static String lines(List<Integer> keys) {
    StringBuilder sb = new StringBuilder();
    keys.forEach(k -> sb.append("key-").append(k).append('\n'));
    return sb.toString();
  }

  /** Whole lines, a checkpoint every {@code every} records, over {@code history}. */
  static DedupJobSpec spec(Path input, Path output, Path history, long every) {
    return DedupJobSpec.builder(List.of(input.toString()))
        .fpp(0.01)
        .checkpointRecords(every)
        .checkpointInterval(Duration.ofHours(1))
        .output(output)
        .maxRecordBytes(1 << 20)
        .rocksDbCacheBytes(8L << 20)
        .threads(1)
        .history(history)
        .build();
  }

  static void delete(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
