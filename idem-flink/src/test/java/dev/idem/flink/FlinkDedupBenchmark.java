package dev.idem.flink;

import java.time.Duration;
import java.util.Locale;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.util.Collector;

/**
 * One run of one dedup strategy on a local MiniCluster with the RocksDB state backend (incremental
 * checkpoints every 2 s): idem's exact mode, the keyed {@code ValueState<Boolean>} pattern of
 * Flink's documentation, or Flink SQL's {@code ROW_NUMBER()} keep-first-row dedup. Prints one
 * tab-separated line: strategy, records, kept, seconds, records/s, state bytes (the last
 * checkpoint's full size), state reads, reads per record, reads per new record. Run by {@code
 * bin/idem-flink-bench}, one JVM per run.
 *
 * <p>Records are {@code Long} keys: in each block of 10 indices, 7 are fresh keys and 3 repeat a
 * key from a uniformly chosen earlier fresh index, so exactly 30 % are duplicates and the distinct
 * keys are exactly 70 % of the records. Keys are scrambled by a bijective mix.
 */
public final class FlinkDedupBenchmark {

  private FlinkDedupBenchmark() {}

  /** Group of the baselines' counters. */
  static final String BASELINE_GROUP = "bench";

  static long key(long i) {
    long block = i / 10;
    int offset = (int) (i % 10);
    if (offset < 7) {
      return mix(7 * block + offset);
    }
    long freshSoFar = 7 * block + 7;
    return mix(Math.floorMod(mix(i ^ 0x5DEECE66DL), freshSoFar));
  }

  static long mix(long x) {
    long z = x + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Flink's documented dedup: one keyed-state read per record, one write per new key. */
  static final class ValueStateDedup extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Boolean> seen;
    private transient Counter reads;

    @Override
    public void open(OpenContext openContext) {
      seen = getRuntimeContext().getState(new ValueStateDescriptor<>("seen", Types.BOOLEAN));
      reads = getRuntimeContext().getMetricGroup().addGroup(BASELINE_GROUP).counter("reads");
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) throws Exception {
      reads.inc();
      if (seen.value() == null) {
        seen.update(Boolean.TRUE);
        out.collect(value);
      }
    }
  }

  /** Counts the records that leave a dedup. */
  static final class CountKept<T> extends RichMapFunction<T, T> {
    private static final long serialVersionUID = 1L;
    private transient Counter kept;

    @Override
    public void open(OpenContext openContext) {
      kept = getRuntimeContext().getMetricGroup().addGroup(BASELINE_GROUP).counter("kept");
    }

    @Override
    public T map(T value) {
      kept.inc();
      return value;
    }
  }

  public static void main(String[] args) throws Exception {
    String strategy = args[0];
    long records = Long.parseLong(args[1]);
    int parallelism = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    long distinct = records / 10 * 7 + Math.min(records % 10, 7);

    Configuration conf = new Configuration();
    conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
    conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
    conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    conf.set(
        CheckpointingOptions.CHECKPOINTS_DIRECTORY,
        java.nio.file.Files.createTempDirectory("idem-flink-bench").toUri().toString());
    conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("512m"));
    conf.setString(CollectingReporter.CONFIG_KEY, CollectingReporter.CONFIG_VALUE);
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    env.enableCheckpointing(Duration.ofSeconds(2).toMillis());

    DataStream<Long> keys =
        env.fromSource(
            new DataGeneratorSource<>(FlinkDedupBenchmark::key, records, Types.LONG),
            WatermarkStrategy.noWatermarks(),
            "keys");
    DataStream<Long> unique =
        switch (strategy) {
          case "idem" -> IdemDedup.of(keys).key(k -> k).exact().expectedKeys(distinct).build();
          case "valuestate" ->
              keys.keyBy(k -> k)
                  .process(new ValueStateDedup(), Types.LONG)
                  .name("ValueState dedup")
                  .map(new CountKept<>());
          case "sql" -> sqlDedup(env, keys);
          default ->
              throw new IllegalArgumentException(
                  "strategy must be idem, valuestate or sql, got " + strategy);
        };
    unique.sinkTo(new DiscardingSink<>());

    JobExecutionResult result = env.execute("dedup benchmark: " + strategy);
    double seconds = result.getNetRuntime() / 1000.0;
    long kept;
    long reads;
    long newKeyReads;
    String readsNote = "";
    switch (strategy) {
      case "idem" -> {
        kept = CollectingReporter.total("kept");
        reads = CollectingReporter.total("tier2Reads");
        newKeyReads = CollectingReporter.total("falsePositivesRescued");
      }
      case "valuestate" -> {
        kept = CollectingReporter.total(BASELINE_GROUP, "kept");
        reads = CollectingReporter.total(BASELINE_GROUP, "reads");
        newKeyReads = kept; // every new key is read once before it is written
      }
      default -> {
        kept = CollectingReporter.total(BASELINE_GROUP, "kept");
        reads = -1; // inside the SQL runtime; at least one per record (a ValueState per key)
        newKeyReads = -1;
        readsNote = " (not measurable; >= 1 per record)";
      }
    }
    Object stateBytes = CollectingReporter.gauge("lastCheckpointFullSize");
    System.out.println(
        String.format(
            Locale.ROOT,
            "%s\t%d\t%d\t%.1f\t%.0f\t%s\t%d\t%.4f\t%.5f%s",
            strategy,
            records,
            kept,
            seconds,
            records / seconds,
            stateBytes,
            reads,
            reads / (double) records,
            newKeyReads / (double) kept,
            readsNote));
    if (kept != distinct) {
      System.err.println("WRONG RESULT: kept " + kept + " of " + distinct + " distinct keys");
      System.exit(1);
    }
  }

  private static DataStream<Long> sqlDedup(StreamExecutionEnvironment env, DataStream<Long> keys) {
    StreamTableEnvironment tables = StreamTableEnvironment.create(env);
    Table t =
        tables.fromDataStream(
            keys, Schema.newBuilder().columnByExpression("pt", "PROCTIME()").build());
    tables.createTemporaryView("records", t);
    Table firstRows =
        tables.sqlQuery(
            "SELECT f0 FROM (SELECT f0, ROW_NUMBER() OVER "
                + "(PARTITION BY f0 ORDER BY pt ASC) AS rn FROM records) WHERE rn = 1");
    return tables.toDataStream(firstRows, Long.class).map(new CountKept<>());
  }
}
