package dev.idem.flink.job;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/** Turns the lines of a file source into {@link JsonRecord}s, dropping {@link BadRecords}. */
final class ParseRecords extends ProcessFunction<byte[], JsonRecord> {
  private static final long serialVersionUID = 1L;

  private final JsonFields fields;
  private final BadRecords bad;

  ParseRecords(JsonFields fields) {
    this.fields = fields;
    this.bad = new BadRecords(fields.needsTime());
  }

  @Override
  public void open(OpenContext context) {
    bad.open(getRuntimeContext().getMetricGroup());
  }

  @Override
  public void processElement(byte[] value, Context ctx, Collector<JsonRecord> out) {
    JsonRecord record = fields.read(value);
    if (record == null) {
      bad.drop(value);
    } else {
      out.collect(record);
    }
  }
}
