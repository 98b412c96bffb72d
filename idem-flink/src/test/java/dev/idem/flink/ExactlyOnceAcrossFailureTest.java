package dev.idem.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.filter.BlockedBloomFilter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job killed mid-stream by an exception restarts from its last checkpoint; what the file sink
 * committed must still hold every distinct key exactly once (exact mode), or never a key twice and
 * few enough keys missing (approximate mode).
 */
class ExactlyOnceAcrossFailureTest {

  private static final int RECORDS = 20_000;
  private static final int PARALLELISM = 2;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestJobs.miniCluster();

  @TempDir Path checkpoints;
  @TempDir Path output;

  @BeforeEach
  void reset() {
    ReplayableSource.reset();
    FailOnce.reset();
    CollectingReporter.clear();
  }

  private void run(Function<DataStream<String>, DataStream<String>> dedup) throws Exception {
    StreamExecutionEnvironment env = TestJobs.environment(checkpoints);
    DataStream<String> records =
        TestJobs.replayableRecords(env, RECORDS)
            .map(new FailOnce(RECORDS * 3 / 5))
            .setParallelism(1);
    dedup.apply(records).sinkTo(TestJobs.fileSink(output)).setParallelism(PARALLELISM);
    env.execute("idem exactly-once test");
    assertThat(FailOnce.FAILED).as("the failure was injected").isTrue();
    assertThat(ReplayableSource.restoredFrom)
        .as("restored from a mid-stream checkpoint")
        .isGreaterThan(0)
        .isLessThan(RECORDS);
  }

  private static Map<String, Long> keyCounts(List<String> lines) {
    return lines.stream()
        .collect(Collectors.groupingBy(DuplicatedKeys::keyOfRecord, Collectors.counting()));
  }

  @Test
  void exactModeCommitsEveryDistinctKeyExactlyOnce() throws Exception {
    run(
        s ->
            IdemDedup.of(s)
                .key(DuplicatedKeys::keyOfRecord)
                .exact()
                .expectedKeys(RECORDS)
                .build()
                .setParallelism(PARALLELISM));

    Set<String> distinct = DuplicatedKeys.distinctKeys(RECORDS);
    assertThat(RECORDS - distinct.size())
        .as("duplicates in the input")
        .isBetween(RECORDS / 4, RECORDS * 2 / 5);
    assertThat(CollectingReporter.total("duplicates")).as("duplicates counted").isPositive();
    List<String> lines = TestJobs.committedLines(output);
    assertThat(lines).hasSize(distinct.size());
    assertThat(keyCounts(lines).keySet()).isEqualTo(distinct);
    // each committed line is the first record of its key in the input
    for (String line : lines) {
      long i = Long.parseLong(line.substring(line.indexOf(',') + 1));
      assertThat(DuplicatedKeys.record(i)).isEqualTo(line);
    }
  }

  @Test
  void approximateModeNeverRepeatsAKeyAndLosesFewerThanItsBound() throws Exception {
    // a filter sized for half the keys at 1 %: overfull on purpose, so that it does drop keys
    long expectedKeys = 7_000;
    double p = 0.01;
    run(
        s ->
            IdemDedup.of(s)
                .key(DuplicatedKeys::keyOfRecord)
                .approximate(p)
                .expectedKeys(expectedKeys)
                .build()
                .setParallelism(PARALLELISM));

    Set<String> distinct = DuplicatedKeys.distinctKeys(RECORDS);
    List<String> lines = TestJobs.committedLines(output);
    Map<String, Long> counts = keyCounts(lines);
    assertThat(counts.values()).as("no key committed twice").allMatch(c -> c == 1);
    assertThat(distinct).containsAll(counts.keySet());
    long dropped = distinct.size() - counts.size();
    // the documented bound: each new key is dropped with at most the rate the subtask's filter
    // has once it holds its share of all keys; twice that, plus slack, for a random outcome
    BlockedBloomFilter shape = BlockedBloomFilter.create(expectedKeys / PARALLELISM, p);
    double worstRate = shape.falsePositiveRate(distinct.size() / PARALLELISM);
    assertThat(dropped)
        .as("keys dropped (rate bound %.3f)", worstRate)
        .isLessThanOrEqualTo((long) (2 * worstRate * distinct.size()) + 20);
    assertThat(dropped).as("an overfull filter drops some new keys").isPositive();
  }
}
