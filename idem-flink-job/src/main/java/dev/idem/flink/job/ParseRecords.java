package dev.idem.flink.job;

import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns raw records into {@link JsonRecord}s. A record that is not a JSON object, or lacks the key
 * (or, in window mode, a readable event time), is counted ({@code idem.badRecords}) and dropped,
 * and the first few are logged: one bad record must not fail the job, since a restart would read it
 * again and fail again.
 */
final class ParseRecords extends ProcessFunction<byte[], JsonRecord> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ParseRecords.class);
  private static final int LOGGED_PER_SUBTASK = 10;
  private static final int SAMPLE_CHARS = 200;

  private final JsonFields fields;
  private transient Counter bad;
  private transient long logged;

  ParseRecords(JsonFields fields) {
    this.fields = fields;
  }

  @Override
  public void open(OpenContext context) {
    bad = getRuntimeContext().getMetricGroup().addGroup("idem").counter("badRecords");
  }

  @Override
  public void processElement(byte[] value, Context ctx, Collector<JsonRecord> out) {
    JsonRecord record = fields.read(value);
    if (record != null) {
      out.collect(record);
      return;
    }
    bad.inc();
    if (logged++ < LOGGED_PER_SUBTASK) {
      String text = new String(value, StandardCharsets.UTF_8);
      LOG.warn(
          "dropped a record that is not a JSON object with the key{} (counted in "
              + "idem.badRecords; only the first {} of each subtask are logged): {}",
          fields.needsTime() ? " and a readable event time" : "",
          LOGGED_PER_SUBTASK,
          text.length() > SAMPLE_CHARS ? text.substring(0, SAMPLE_CHARS) + "…" : text);
    }
  }
}
