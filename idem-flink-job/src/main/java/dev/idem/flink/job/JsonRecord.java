package dev.idem.flink.job;

/**
 * One input record as the job carries it: its bytes, untouched, with the key and event time read
 * from them once. Public with public fields only because Flink's POJO serializer needs them so; not
 * an API.
 */
public final class JsonRecord {
  /** The record's key as text (a JSON string's value, or any other value's JSON text). */
  public String key;

  /** Event time in epoch milliseconds, or {@link Long#MIN_VALUE} when the job has no windows. */
  public long eventTime;

  /** The record exactly as read. */
  public byte[] bytes;

  /** For Flink's POJO serializer. */
  public JsonRecord() {}

  JsonRecord(String key, long eventTime, byte[] bytes) {
    this.key = key;
    this.eventTime = eventTime;
    this.bytes = bytes;
  }
}
