package dev.idem.engine.job;

import static dev.idem.engine.job.HistoryRunPropertiesTest.lines;
import static dev.idem.engine.job.HistoryRunPropertiesTest.run;
import static dev.idem.engine.job.HistoryRunPropertiesTest.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.filter.FilterType;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.DurableDeduplicator;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.Idem;
import dev.idem.engine.JobException;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.JobListener;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The run protocol of a history: which command resumes, which is refused, which does nothing. */
class HistoryRunTest {

  @TempDir Path dir;

  private Path history() {
    return dir.resolve("history");
  }

  private DedupJobSpec batch(String name, List<Integer> keys) throws IOException {
    Path input = dir.resolve(name + ".txt");
    Files.writeString(input, lines(keys));
    return spec(input, dir.resolve(name + ".out"), history(), 2);
  }

  private static CrashPoints killAtRecord(int n) {
    int[] count = new int[1];
    return step -> {
      if (step == DedupStep.RECORD_HANDLED && ++count[0] == n) {
        throw new HistoryRunPropertiesTest.SimulatedKill(
            new HistoryRunPropertiesTest.Kill(step, n));
      }
    };
  }

  @Test
  void anotherRunIsRefusedWhileOneIsUnfinishedNamingItAndWhatToDo() throws IOException {
    DedupJobSpec monday = batch("monday", List.of(1, 2, 3, 4, 5, 6, 7));
    DedupJobSpec tuesday = batch("tuesday", List.of(5, 6, 8));
    assertThatThrownBy(() -> run(monday, killAtRecord(5)))
        .isInstanceOf(HistoryRunPropertiesTest.SimulatedKill.class);

    assertThatThrownBy(() -> run(tuesday, CrashPoints.NONE))
        .isInstanceOf(JobException.class)
        .hasMessageContaining("unfinished run 1")
        .hasMessageContaining("monday.txt")
        .hasMessageContaining("finish that run first by running its command again");
    assertThat(dir.resolve("tuesday.out")).doesNotExist();

    JobResult resumed = run(monday, CrashPoints.NONE);
    assertThat(resumed.resumed()).isTrue();
    assertThat(Files.readString(monday.output())).isEqualTo(lines(List.of(1, 2, 3, 4, 5, 6, 7)));
    run(tuesday, CrashPoints.NONE);
    assertThat(Files.readString(tuesday.output())).isEqualTo(lines(List.of(8)));
  }

  @Test
  void aRunThatFailedAtItsFirstRecordCommittedNothingAndAnotherTakesItsPlace() throws IOException {
    Path input = dir.resolve("wrong.txt");
    Files.writeString(input, "x".repeat(2 << 20) + "\n" + lines(List.of(1)));
    DedupJobSpec wrong = spec(input, dir.resolve("wrong.out"), history(), 2);
    assertThatThrownBy(() -> run(wrong, CrashPoints.NONE))
        .isInstanceOf(dev.idem.engine.records.BadRecordException.class);

    DedupJobSpec monday = batch("monday", List.of(1, 2));
    run(monday, CrashPoints.NONE);

    assertThat(Files.readString(monday.output())).isEqualTo(lines(List.of(1, 2)));
    assertThat(new HistoryRuns(history()).all())
        .extracting(HistoryCheckpoint::run)
        .containsExactly(1L);
  }

  @Test
  void aCompletedRunStartedAgainChangesNothingEvenAfterLaterRuns() throws IOException {
    DedupJobSpec monday = batch("monday", List.of(1, 2, 2, 3));
    DedupJobSpec tuesday = batch("tuesday", List.of(3, 4));
    run(monday, CrashPoints.NONE);
    run(tuesday, CrashPoints.NONE);
    byte[] before = Files.readAllBytes(monday.output());
    long keys = Deduplicator.describeState(history()).keys();
    long commits = Deduplicator.describeState(history()).commits();

    JobResult again = run(monday, CrashPoints.NONE);

    assertThat(again.alreadyComplete()).isTrue();
    assertThat(again.last().stats().kept()).isEqualTo(3);
    assertThat(Files.readAllBytes(monday.output())).isEqualTo(before);
    assertThat(Deduplicator.describeState(history()).keys()).isEqualTo(keys);
    assertThat(Deduplicator.describeState(history()).commits()).isEqualTo(commits);
    assertThat(new HistoryRuns(history()).all())
        .extracting(HistoryCheckpoint::run)
        .containsExactly(1L, 2L);
  }

  @Test
  void aBatchWhoseFileChangedSinceItsRunIsANewRunAgainstTheHistory() throws IOException {
    DedupJobSpec monday = batch("monday", List.of(1, 2));
    run(monday, CrashPoints.NONE);
    Files.writeString(Path.of(monday.inputs().get(0)), lines(List.of(1, 2, 9)));

    JobResult r = run(monday, CrashPoints.NONE);

    assertThat(r.alreadyComplete()).isFalse();
    assertThat(Files.readString(monday.output())).isEqualTo(lines(List.of(9)));
  }

  @Test
  void aHistoryInUseIsRefusedNamingTheHolder() throws IOException {
    DedupJobSpec monday = batch("monday", List.of(1));
    run(monday, CrashPoints.NONE);
    try (DurableDeduplicator other =
        Idem.deduplicator().state(history()).falsePositiveRate(0.01).open()) {
      DedupJobSpec tuesday = batch("tuesday", List.of(2));
      assertThatThrownBy(() -> run(tuesday, CrashPoints.NONE))
          .isInstanceOf(JobException.class)
          .hasMessageContaining("is in use by another process")
          .hasMessageContaining("one run at a time");
    }
  }

  @Test
  void aDirectoryThatIsNotAHistoryIsRefusedAndLeftAlone() throws IOException {
    Files.createDirectories(history());
    Files.writeString(history().resolve("notes.txt"), "mine");
    DedupJobSpec monday = batch("monday", List.of(1));

    assertThatThrownBy(() -> run(monday, CrashPoints.NONE))
        .isInstanceOf(JobException.class)
        .hasMessageContaining("holds files that are not a history's (notes.txt)");
    try (var files = Files.list(history())) {
      assertThat(files).containsExactly(history().resolve("notes.txt"));
    }
  }

  @Test
  void aWorkersDurableSetWithItsOwnTokenIsRefused() throws IOException {
    try (DurableDeduplicator worker = Idem.deduplicator().state(history()).open()) {
      worker.firstSeen("key-1");
      worker.commit(new byte[] {0, 0, 0, 7});
    }
    assertThatThrownBy(() -> run(batch("monday", List.of(1)), CrashPoints.NONE))
        .isInstanceOf(JobException.class)
        .hasMessageContaining("another program's token");
  }

  @Test
  void keysAWorkerAddedWithoutATokenCountAsHistory() throws IOException {
    try (DurableDeduplicator worker =
        Idem.deduplicator().state(history()).falsePositiveRate(0.01).open()) {
      worker.firstSeen("key-1");
      worker.commit();
    }
    DedupJobSpec monday = batch("monday", List.of(1, 2));
    run(monday, CrashPoints.NONE);
    assertThat(Files.readString(monday.output())).isEqualTo(lines(List.of(2)));
  }

  @Test
  void aLaterRunKeepsTheHistorysOwnFilterWhateverSizingItGives() throws IOException {
    run(batch("monday", List.of(1, 2, 3)), CrashPoints.NONE);
    Map<String, String> settings = Deduplicator.describeState(history()).settings();
    Path input = dir.resolve("tuesday.txt");
    Files.writeString(input, lines(List.of(3, 4, 1, 5)));
    DedupJobSpec tuesday =
        DedupJobSpec.builder(List.of(input.toString()))
            .filterType(FilterType.BLOOM)
            .expectedKeys(ExpectedKeys.of(5_000))
            .fpp(0.2)
            .checkpointRecords(2)
            .output(dir.resolve("tuesday.out"))
            .maxRecordBytes(1 << 20)
            .rocksDbCacheBytes(8L << 20)
            .threads(1)
            .history(history())
            .build();
    List<String> notes = new ArrayList<>();
    DedupJob.run(
        tuesday,
        InputStream.nullInputStream(),
        OutputStream.nullOutputStream(),
        new JobListener() {
          @Override
          public void note(String message) {
            notes.add(message);
          }
        },
        CrashPoints.NONE);

    assertThat(Files.readString(tuesday.output())).isEqualTo(lines(List.of(4, 5)));
    assertThat(notes).anyMatch(n -> n.contains("run 2; 3 keys from earlier runs"));
    assertThat(Deduplicator.describeState(history()).settings()).isEqualTo(settings);
    assertThat(Deduplicator.describeState(history()).keys()).isEqualTo(5);
  }

  @Test
  void aRunOpensItsHistoryOnce() throws IOException {
    run(batch("monday", List.of(1, 2, 3)), CrashPoints.NONE);
    long before = StateStore.opened();
    run(batch("tuesday", List.of(3, 4)), CrashPoints.NONE);
    assertThat(StateStore.opened() - before).as("RocksDB opens by the second run").isEqualTo(1);
  }
}
