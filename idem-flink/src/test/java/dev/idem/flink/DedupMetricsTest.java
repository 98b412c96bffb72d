package dev.idem.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Set;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The counters add up, and exact mode reads keyed state only for duplicates and the filter's false
 * positives: reads per new key stay near the filter's rate.
 */
class DedupMetricsTest {

  private static final int RECORDS = 20_000;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestJobs.miniCluster();

  @TempDir Path checkpoints;

  @BeforeEach
  void reset() {
    ReplayableSource.reset();
    CollectingReporter.clear();
  }

  @Test
  void exactModeReadsKeyedStateForDuplicatesAndFalsePositivesOnly() throws Exception {
    double p = 0.01;
    StreamExecutionEnvironment env = TestJobs.environment(checkpoints);
    IdemDedup.of(TestJobs.replayableRecords(env, RECORDS))
        .key(DuplicatedKeys::keyOfRecord)
        .exact()
        .falsePositiveRate(p)
        .expectedKeys(RECORDS)
        .build()
        .setParallelism(2)
        .sinkTo(new DiscardingSink<>());
    env.execute("idem metrics test");

    Set<String> distinct = DuplicatedKeys.distinctKeys(RECORDS);
    long duplicates = RECORDS - distinct.size();
    assertThat(CollectingReporter.total("records")).isEqualTo(RECORDS);
    assertThat(CollectingReporter.total("kept")).isEqualTo(distinct.size());
    assertThat(CollectingReporter.total("duplicates")).isEqualTo(duplicates);
    long rescued = CollectingReporter.total("falsePositivesRescued");
    assertThat(CollectingReporter.total("tier2Reads")).isEqualTo(duplicates + rescued);
    // the filter is sized for all records, so its rate stays below p: generous bound 3p
    assertThat(rescued).isLessThanOrEqualTo((long) (3 * p * distinct.size()) + 5);
  }

  @Test
  void approximateModeCountsWithoutKeyedState() throws Exception {
    StreamExecutionEnvironment env = TestJobs.environment(checkpoints);
    IdemDedup.of(TestJobs.replayableRecords(env, RECORDS))
        .key(DuplicatedKeys::keyOfRecord)
        .approximate(0.001)
        .expectedKeys(RECORDS)
        .build()
        .setParallelism(2)
        .sinkTo(new DiscardingSink<>());
    env.execute("idem metrics test");

    assertThat(CollectingReporter.total("records")).isEqualTo(RECORDS);
    assertThat(CollectingReporter.total("kept") + CollectingReporter.total("duplicates"))
        .isEqualTo(RECORDS);
    assertThat(CollectingReporter.total("tier2Reads")).isZero();
  }
}
