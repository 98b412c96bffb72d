package dev.idem.flink.job;

import java.util.Locale;

/**
 * Where records come from or go: {@code kafka://BROKERS/TOPIC} or {@code file://DIR}, as the
 * command line writes them.
 */
record Endpoint(Kind kind, String brokers, String topic, String directory) {

  enum Kind {
    KAFKA,
    FILE
  }

  /**
   * Parses {@code text}, naming {@code option} in the message when it cannot.
   *
   * @throws IllegalArgumentException saying what a valid value looks like
   */
  static Endpoint parse(String option, String text) {
    String lower = text.toLowerCase(Locale.ROOT);
    if (lower.startsWith("kafka://")) {
      String rest = text.substring("kafka://".length());
      int slash = rest.indexOf('/');
      if (slash <= 0 || slash == rest.length() - 1 || rest.indexOf('/', slash + 1) >= 0) {
        throw new IllegalArgumentException(
            option
                + " "
                + text
                + ": a Kafka endpoint is kafka://BROKERS/TOPIC, e.g. "
                + "kafka://broker1:9092,broker2:9092/clicks");
      }
      return new Endpoint(Kind.KAFKA, rest.substring(0, slash), rest.substring(slash + 1), null);
    }
    if (lower.startsWith("file://")) {
      String dir = text.substring("file://".length());
      if (dir.isEmpty()) {
        throw new IllegalArgumentException(
            option + " " + text + ": give a directory, e.g. file:///data/clicks");
      }
      return new Endpoint(Kind.FILE, null, null, dir);
    }
    throw new IllegalArgumentException(
        option
            + " "
            + text
            + ": give kafka://BROKERS/TOPIC (e.g. kafka://localhost:9092/clicks) or "
            + "file://DIR (e.g. file:///data/clicks)");
  }

  boolean isKafka() {
    return kind == Kind.KAFKA;
  }

  @Override
  public String toString() {
    return isKafka() ? "kafka://" + brokers + "/" + topic : "file://" + directory;
  }
}
