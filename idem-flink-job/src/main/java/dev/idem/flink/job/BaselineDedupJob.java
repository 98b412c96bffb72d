package dev.idem.flink.job;

import java.util.Arrays;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.util.Collector;

/**
 * Flink's two standard ways to keep the first record of each key, on the same sources, sinks and
 * options as {@link IdemFlinkJob}, so that idem can be compared with them on one's own cluster by
 * changing the entry class and one word (docs/FLINK.md, "Comparing with Flink's own dedup"):
 *
 * <pre>
 * flink run -c dev.idem.flink.job.BaselineDedupJob idem-flink-job.jar value-state|sql --source ...
 * </pre>
 *
 * <ul>
 *   <li>{@code value-state}: the pattern of Flink's documentation, a keyed {@code
 *       ValueState<Boolean>} read for every record and written for each new key. It counts its
 *       reads in the metric {@code baseline.stateReads}.
 *   <li>{@code sql}: Flink SQL's keep-first-row dedup, {@code ROW_NUMBER() OVER (PARTITION BY key
 *       ORDER BY PROCTIME()) = 1}; its state reads happen inside Flink's runtime and are not
 *       counted.
 * </ul>
 *
 * Only {@code --mode exact} applies (the default); {@code --expected-keys} is required as for idem
 * and unused, {@code --fpp} unused.
 */
public final class BaselineDedupJob {
  private BaselineDedupJob() {}

  /**
   * Builds and runs the baseline named by {@code args[0]} with the job options that follow.
   *
   * @throws IllegalArgumentException when the baseline or the options are wrong
   */
  public static void main(String[] args) throws Exception {
    if (args.length == 0 || !(args[0].equals("value-state") || args[0].equals("sql"))) {
      throw new IllegalArgumentException(
          "the first argument names the baseline, value-state or sql; then the options of the idem"
              + " job (--source, --sink, --key, --expected-keys, ...), got "
              + Arrays.toString(args));
    }
    JobOptions options = JobOptions.parse(Arrays.copyOfRange(args, 1, args.length));
    if (options.help) {
      System.out.println(JobOptions.usage());
      return;
    }
    if (options.mode != JobOptions.Mode.EXACT) {
      throw new IllegalArgumentException(
          "the baselines keep every key once, ever: drop --mode " + options.mode);
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(options.checkpointInterval.toMillis(), CheckpointingMode.EXACTLY_ONCE);
    if (options.parallelism != null) {
      env.setParallelism(options.parallelism);
    }
    DataStream<JsonRecord> records =
        Connectors.source(
            env,
            options.sourceEndpoint,
            options.groupId,
            new JsonFields(options.key, null),
            WatermarkStrategy.noWatermarks());
    DataStream<byte[]> kept =
        args[0].equals("sql") ? firstRowBySql(env, records) : firstRowByValueState(records);
    Endpoint sink = options.sinkEndpoint;
    kept.sinkTo(
            Connectors.sink(
                sink,
                sink.topic(),
                sink.isKafka() ? options.transactionalIdPrefixOrDefault() : null))
        .uid("sink")
        .name("kept to " + sink);
    env.execute("baseline " + args[0] + " " + options.sourceEndpoint + " -> " + sink);
  }

  private static DataStream<byte[]> firstRowByValueState(DataStream<JsonRecord> records) {
    return records
        .keyBy(record -> record.key)
        .process(new FirstByValueState())
        .returns(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
        .uid("dedup")
        .name("ValueState dedup");
  }

  private static DataStream<byte[]> firstRowBySql(
      StreamExecutionEnvironment env, DataStream<JsonRecord> records) {
    StreamTableEnvironment tables = StreamTableEnvironment.create(env);
    Table table =
        tables.fromDataStream(
            records, Schema.newBuilder().columnByExpression("pt", "PROCTIME()").build());
    tables.createTemporaryView("records", table);
    Table firstRows =
        tables.sqlQuery(
            "SELECT `bytes` FROM (SELECT `bytes`, ROW_NUMBER() OVER (PARTITION BY `key` ORDER BY"
                + " pt ASC) AS rn FROM records) WHERE rn = 1");
    return tables
        .toDataStream(firstRows)
        .map(row -> (byte[]) row.getFieldAs(0))
        .returns(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
        .name("bytes");
  }

  /** Read the key's flag; if it is unset, set it and pass the record. */
  static final class FirstByValueState extends KeyedProcessFunction<String, JsonRecord, byte[]> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Boolean> seen;
    private transient Counter reads;

    @Override
    public void open(OpenContext openContext) {
      seen = getRuntimeContext().getState(new ValueStateDescriptor<>("seen", Types.BOOLEAN));
      reads = getRuntimeContext().getMetricGroup().addGroup("baseline").counter("stateReads");
    }

    @Override
    public void processElement(JsonRecord record, Context ctx, Collector<byte[]> out)
        throws Exception {
      reads.inc();
      if (seen.value() == null) {
        seen.update(Boolean.TRUE);
        out.collect(record.bytes);
      }
    }
  }
}
