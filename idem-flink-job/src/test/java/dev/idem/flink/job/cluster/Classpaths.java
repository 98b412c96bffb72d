package dev.idem.flink.job.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The classpaths Maven wrote for the test's processes (see idem-flink-job's pom): the Flink
 * cluster's is the provided scope, which holds no job class, no Kafka broker and no Scala.
 */
public final class Classpaths {
  private Classpaths() {}

  static String flinkCluster() throws IOException {
    String cp = read("idem.flinkClasspath");
    for (String forbidden : new String[] {"/org/scala-lang/", "/kafka_2.13/", "/dev/idem/"}) {
      if (cp.contains(forbidden)) {
        throw new IllegalStateException(
            "the Flink cluster's classpath must not hold " + forbidden + ": " + cp);
      }
    }
    return cp;
  }

  static String kafkaBroker() throws IOException {
    return read("idem.kafkaClasspath");
  }

  public static Path jobJar() {
    return Path.of(property("idem.jobJar"));
  }

  public static Path workDir() {
    return Path.of(property("idem.itDir"));
  }

  private static String read(String property) throws IOException {
    return Files.readString(Path.of(property(property)), StandardCharsets.UTF_8).trim();
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null) {
      throw new IllegalStateException(
          "system property "
              + name
              + " is not set: run this test through Maven (./mvnw -pl idem-flink-job -am verify), "
              + "whose failsafe configuration sets it");
    }
    return value;
  }
}
