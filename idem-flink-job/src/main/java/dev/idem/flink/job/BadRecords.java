package dev.idem.flink.job;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts and drops records that are not a JSON object with the key (or, in window mode, a readable
 * event time): metric {@code idem.badRecords}, and the first few logged. One bad record must not
 * fail the job, since a restart would read it again and fail again.
 */
final class BadRecords implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(BadRecords.class);
  private static final int LOGGED_PER_SUBTASK = 10;
  private static final int SAMPLE_CHARS = 200;

  private final String what;
  private transient Counter counter;
  private transient long logged;

  /**
   * @param needsTime whether records need an event time too (for the log's wording)
   */
  BadRecords(boolean needsTime) {
    this.what =
        needsTime
            ? "a JSON object with the key and a readable event time"
            : "a JSON object with the key";
  }

  void open(MetricGroup group) {
    counter = group.addGroup("idem").counter("badRecords");
  }

  void drop(byte[] record) {
    counter.inc();
    if (logged++ < LOGGED_PER_SUBTASK) {
      String text = new String(record, StandardCharsets.UTF_8);
      LOG.warn(
          "dropped a record that is not {} (counted in idem.badRecords; only the first {} of "
              + "each subtask are logged): {}",
          what,
          LOGGED_PER_SUBTASK,
          text.length() > SAMPLE_CHARS ? text.substring(0, SAMPLE_CHARS) + "…" : text);
    }
  }
}
