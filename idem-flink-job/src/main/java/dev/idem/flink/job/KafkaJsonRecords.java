package dev.idem.flink.job;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads each Kafka message's value as one {@link JsonRecord}, in the source itself, so that in
 * window mode the source can keep a watermark per partition (a partition read ahead of another does
 * not make the other's records late); {@link BadRecords} are dropped here.
 */
final class KafkaJsonRecords implements KafkaRecordDeserializationSchema<JsonRecord> {
  private static final long serialVersionUID = 1L;

  private final JsonFields fields;
  private final BadRecords bad;

  KafkaJsonRecords(JsonFields fields) {
    this.fields = fields;
    this.bad = new BadRecords(fields.needsTime());
  }

  @Override
  public void open(DeserializationSchema.InitializationContext context) {
    bad.open(context.getMetricGroup());
  }

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> message, Collector<JsonRecord> out) {
    byte[] value = message.value();
    JsonRecord record = value == null ? null : fields.read(value);
    if (record == null) {
      bad.drop(value == null ? new byte[0] : value);
    } else {
      out.collect(record);
    }
  }

  @Override
  public TypeInformation<JsonRecord> getProducedType() {
    return TypeInformation.of(JsonRecord.class);
  }
}
