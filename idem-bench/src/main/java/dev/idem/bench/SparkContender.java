package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of the Spark MLlib contender ({@code idem-bench/spark}, a Maven project of its
 * own, outside idem's build), built on first use. Its JVM gets the options Spark's own launcher
 * gives Java 17 (the {@code --add-opens} of Spark's {@code JavaModuleOptions}).
 */
final class SparkContender {
  private static final Path PROJECT = Path.of("idem-bench/spark");
  private static final String[] OPENS = {
    "java.lang",
    "java.lang.invoke",
    "java.lang.reflect",
    "java.io",
    "java.net",
    "java.nio",
    "java.util",
    "java.util.concurrent",
    "java.util.concurrent.atomic",
    "jdk.internal.ref",
    "sun.nio.ch",
    "sun.nio.cs",
    "sun.security.action",
    "sun.util.calendar"
  };

  private SparkContender() {}

  /** {@code java ... SparkNearDup}, with a fixed heap of {@code heap}; arguments to follow. */
  static List<String> command(String heap) throws IOException, InterruptedException {
    Path classpathFile = PROJECT.resolve("target/classpath");
    if (!Files.exists(classpathFile) || !Files.exists(PROJECT.resolve("target/classes"))) {
      ForkRunner.log("near-dup: building " + PROJECT + " (Spark, ~320 MB of jars on first use)");
      Process build =
          new ProcessBuilder(
                  "./mvnw",
                  "-q",
                  "-B",
                  "-f",
                  PROJECT.resolve("pom.xml").toString(),
                  "package",
                  "dependency:build-classpath",
                  "-Dmdep.outputFile=target/classpath")
              .inheritIO()
              .start();
      if (build.waitFor() != 0) {
        throw new IOException("building " + PROJECT + " failed");
      }
    }
    String classpath =
        PROJECT.resolve("target/classes").toAbsolutePath()
            + ":"
            + Files.readString(classpathFile, StandardCharsets.UTF_8).trim();
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "-Xms" + heap, "-Xmx" + heap));
    for (String p : OPENS) {
      cmd.add("--add-opens=java.base/" + p + "=ALL-UNNAMED");
    }
    cmd.addAll(
        List.of(
            "-Djdk.reflect.useDirectMethodHandle=false",
            "-Dio.netty.tryReflectionSetAccessible=true",
            "-cp",
            classpath,
            "dev.idem.bench.spark.SparkNearDup"));
    return cmd;
  }
}
