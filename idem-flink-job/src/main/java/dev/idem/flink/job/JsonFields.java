package dev.idem.flink.job;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Serializable;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Reads a record's key, and its event time in window mode, from its JSON with Jackson. A record
 * that is not JSON, or lacks either field, yields {@code null}: the caller counts it as bad.
 */
final class JsonFields implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String keyPath;
  private final String timePath;
  private transient ObjectMapper mapper;
  private transient JsonPointer key;
  private transient JsonPointer time;

  /**
   * @param keyPath a top-level field name, or a JSON Pointer when it starts with {@code /}
   * @param timePath the same for the event time, or {@code null} when the job has no windows
   */
  JsonFields(String keyPath, String timePath) {
    this.keyPath = keyPath;
    this.timePath = timePath;
  }

  boolean needsTime() {
    return timePath != null;
  }

  /** The record with its key and time, or {@code null} when {@code bytes} lack either. */
  JsonRecord read(byte[] bytes) {
    if (mapper == null) {
      mapper = new ObjectMapper();
      key = pointer(keyPath);
      time = timePath == null ? null : pointer(timePath);
    }
    JsonNode root;
    try {
      root = mapper.readTree(bytes);
    } catch (IOException e) {
      return null;
    }
    if (root == null || !root.isObject()) {
      return null;
    }
    JsonNode keyNode = root.at(key);
    if (keyNode.isMissingNode() || keyNode.isNull()) {
      return null;
    }
    String keyText = keyNode.isTextual() ? keyNode.textValue() : keyNode.toString();
    long eventTime = Long.MIN_VALUE;
    if (time != null) {
      Long t = epochMillis(root.at(time));
      if (t == null) {
        return null;
      }
      eventTime = t;
    }
    return new JsonRecord(keyText, eventTime, bytes);
  }

  /**
   * A number is epoch milliseconds; a string an ISO-8601 instant ({@code 2025-12-02T10:00:00Z}).
   */
  private static Long epochMillis(JsonNode node) {
    if (node.isIntegralNumber() && node.canConvertToLong()) {
      return node.longValue();
    }
    if (node.isTextual()) {
      try {
        return Instant.parse(node.textValue()).toEpochMilli();
      } catch (DateTimeParseException e) {
        return null;
      }
    }
    return null;
  }

  static JsonPointer pointer(String path) {
    return path.startsWith("/")
        ? JsonPointer.compile(path)
        : JsonPointer.compile("/" + escape(path));
  }

  private static String escape(String field) {
    return field.replace("~", "~0").replace("/", "~1");
  }
}
