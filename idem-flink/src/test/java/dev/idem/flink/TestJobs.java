package dev.idem.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** The MiniCluster, environment and exactly-once file output the integration tests share. */
final class TestJobs {

  private TestJobs() {}

  /** One task manager with enough slots for parallelism 3, and the metric collector. */
  static MiniClusterExtension miniCluster() {
    Configuration conf = new Configuration();
    conf.setString(CollectingReporter.CONFIG_KEY, CollectingReporter.CONFIG_VALUE);
    return new MiniClusterExtension(
        new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .setConfiguration(conf)
            .build());
  }

  /**
   * An environment with the RocksDB state backend, checkpoints every 100 ms into {@code
   * checkpoints}, and a fixed-delay restart strategy.
   */
  static StreamExecutionEnvironment environment(Path checkpoints) {
    Configuration conf = new Configuration();
    conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
    conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.enableCheckpointing(100);
    return env;
  }

  /**
   * {@link ReplayableSource} of {@code count} records at parallelism 1, with uid {@code "records"}.
   * The legacy source API is deprecated in Flink 2, and used here on purpose (see
   * ReplayableSource).
   */
  @SuppressWarnings("deprecation")
  static DataStream<String> replayableRecords(StreamExecutionEnvironment env, long count) {
    return env.addSource(new ReplayableSource(count)).setParallelism(1).uid("records");
  }

  /** Exactly-once text files: a part file is committed when a checkpoint completes. */
  static FileSink<String> fileSink(Path dir) {
    return FileSink.forRowFormat(
            new org.apache.flink.core.fs.Path(dir.toUri()), new SimpleStringEncoder<String>())
        .withRollingPolicy(OnCheckpointRollingPolicy.build())
        .build();
  }

  /** The lines of the committed part files (in-progress and pending files are hidden). */
  static List<String> committedLines(Path dir) {
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f) && !f.getFileName().toString().startsWith(".")) {
          lines.addAll(Files.readAllLines(f));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return lines;
  }
}
