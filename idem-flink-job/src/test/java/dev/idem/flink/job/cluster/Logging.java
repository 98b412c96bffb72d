package dev.idem.flink.job.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** One log4j2 configuration for every child process: INFO to standard output (the log file). */
final class Logging {
  private Logging() {}

  static Path writeConfig(Path dir) throws IOException {
    Path file = dir.resolve("log4j2.properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "rootLogger.level = INFO",
            "rootLogger.appenderRef.out.ref = out",
            "appender.out.type = Console",
            "appender.out.name = out",
            "appender.out.layout.type = PatternLayout",
            "appender.out.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c{1} [%t] %m%n",
            // the broker's request logs and Flink's network stack say little that helps here
            "logger.kafkareq.name = kafka.request.logger",
            "logger.kafkareq.level = WARN",
            "logger.netty.name = org.apache.flink.shaded",
            "logger.netty.level = WARN",
            ""));
    return file;
  }

  static String option(Path config) {
    return "-Dlog4j2.configurationFile=" + config.toUri();
  }
}
