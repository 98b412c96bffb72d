package dev.idem.flink.job;

import dev.idem.flink.IdemDedup;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.OutputTag;

/**
 * The job's graph: source (records parsed, {@link BadRecords} dropped), {@link IdemDedup}, sink
 * (and, in window mode, the late records' sink). Every stateful step has a fixed uid, so savepoints
 * survive new versions.
 */
final class DedupPipeline {
  private static final OutputTag<JsonRecord> LATE =
      new OutputTag<>("late", TypeInformation.of(JsonRecord.class));

  private DedupPipeline() {}

  static void build(StreamExecutionEnvironment env, JobOptions options) {
    boolean windowed = options.mode == JobOptions.Mode.WINDOW;
    JsonFields fields = new JsonFields(options.key, windowed ? options.timeField : null);
    WatermarkStrategy<JsonRecord> watermarks =
        windowed
            ? WatermarkStrategy.<JsonRecord>forBoundedOutOfOrderness(options.maxDelayOrZero())
                .withTimestampAssigner((record, previous) -> record.eventTime)
            : WatermarkStrategy.noWatermarks();
    DataStream<JsonRecord> records =
        Connectors.source(env, options.sourceEndpoint, options.groupId, fields, watermarks);

    IdemDedup<JsonRecord> dedup;
    if (windowed) {
      dedup = IdemDedup.of(records).key(record -> record.key);
      dedup =
          options.sliding
              ? dedup.withinWindow(options.window)
              : dedup.inTumblingWindows(options.window);
      dedup = dedup.allowedLateness(options.allowedLatenessOrZero());
      if (options.lateTopic != null) {
        dedup = dedup.sideOutputLateData(LATE);
      }
    } else {
      dedup = IdemDedup.of(records).key(record -> record.key).expectedKeys(options.expectedKeys);
      if (options.mode == JobOptions.Mode.APPROXIMATE) {
        dedup = dedup.approximate(options.fpp);
      } else if (options.fpp != null) {
        dedup = dedup.falsePositiveRate(options.fpp);
      }
    }
    SingleOutputStreamOperator<JsonRecord> kept = dedup.build().uid("dedup");

    Endpoint sink = options.sinkEndpoint;
    String prefix = sink.isKafka() ? options.transactionalIdPrefixOrDefault() : null;
    bytes(kept)
        .sinkTo(Connectors.sink(sink, sink.topic(), prefix))
        .uid("sink")
        .name("kept to " + sink);
    if (options.lateTopic != null) {
      bytes(kept.getSideOutput(LATE))
          .sinkTo(Connectors.sink(sink, options.lateTopic, prefix + "-late"))
          .uid("late-sink")
          .name("late to " + options.lateTopic);
    }
  }

  private static DataStream<byte[]> bytes(DataStream<JsonRecord> records) {
    return records
        .map(record -> record.bytes)
        .returns(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
        .name("bytes");
  }
}
