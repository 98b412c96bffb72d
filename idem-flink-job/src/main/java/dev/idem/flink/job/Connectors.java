package dev.idem.flink.job;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.Encoder;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/** The job's sources and sinks, from the command line's endpoints; records travel as bytes. */
final class Connectors {
  /**
   * Kafka transactions stay open from one checkpoint to the next, so their timeout must outlast a
   * checkpoint and a restart; it must also not exceed the brokers' {@code
   * transaction.max.timeout.ms}, 15 minutes by default.
   */
  static final Duration TRANSACTION_TIMEOUT = Duration.ofMinutes(15);

  private Connectors() {}

  /**
   * The records of {@code from}, parsed, with {@code watermarks}. Kafka: one record a message, from
   * the group's committed offsets (the earliest when it has none), which the source commits on each
   * checkpoint; watermarks are kept per partition. Files: one record a line, read once.
   */
  static DataStream<JsonRecord> source(
      StreamExecutionEnvironment env,
      Endpoint from,
      String groupId,
      JsonFields fields,
      WatermarkStrategy<JsonRecord> watermarks) {
    if (from.isKafka()) {
      KafkaSource<JsonRecord> kafka =
          KafkaSource.<JsonRecord>builder()
              .setBootstrapServers(from.brokers())
              .setTopics(from.topic())
              .setGroupId(groupId)
              .setStartingOffsets(OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
              .setDeserializer(new KafkaJsonRecords(fields))
              .setProperty("commit.offsets.on.checkpoint", "true")
              // a dedup job must not read records of aborted transactions
              .setProperty("isolation.level", "read_committed")
              .build();
      return env.fromSource(kafka, watermarks, "kafka " + from.topic()).uid("source");
    }
    FileSource<String> files =
        FileSource.forRecordStreamFormat(new TextLineInputFormat(), new Path(from.directory()))
            .build();
    return env.fromSource(files, WatermarkStrategy.noWatermarks(), "files " + from.directory())
        .uid("source")
        .map(line -> line.getBytes(StandardCharsets.UTF_8))
        .returns(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
        .uid("lines-to-bytes")
        .name("lines to bytes")
        .process(new ParseRecords(fields))
        .returns(JsonRecord.class)
        .uid("parse")
        .name("parse JSON")
        .assignTimestampsAndWatermarks(watermarks)
        .uid("watermarks");
  }

  /**
   * Writes to {@code to}. Kafka: in transactions committed on checkpoints, under the transactional
   * id prefix {@code transactionalIdPrefix}; files: a line a record, part files committed on
   * checkpoints.
   */
  static Sink<byte[]> sink(Endpoint to, String topic, String transactionalIdPrefix) {
    if (to.isKafka()) {
      Properties producer = new Properties();
      producer.setProperty("transaction.timeout.ms", Long.toString(TRANSACTION_TIMEOUT.toMillis()));
      return KafkaSink.<byte[]>builder()
          .setBootstrapServers(to.brokers())
          .setKafkaProducerConfig(producer)
          .setRecordSerializer(
              KafkaRecordSerializationSchema.<byte[]>builder()
                  .setTopic(topic)
                  .setValueSerializationSchema(new RawBytes())
                  .build())
          .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
          .setTransactionalIdPrefix(transactionalIdPrefix)
          .build();
    }
    return FileSink.forRowFormat(new Path(to.directory()), new LineEncoder()).build();
  }

  /** A record's bytes as they are. */
  static final class RawBytes implements SerializationSchema<byte[]> {
    private static final long serialVersionUID = 1L;

    @Override
    public byte[] serialize(byte[] element) {
      return element;
    }
  }

  /** A record's bytes and a newline: JSON Lines. */
  static final class LineEncoder implements Encoder<byte[]> {
    private static final long serialVersionUID = 1L;

    @Override
    public void encode(byte[] element, java.io.OutputStream stream) throws java.io.IOException {
      stream.write(element);
      stream.write('\n');
    }
  }
}
