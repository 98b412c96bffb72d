package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rocksdbjni is an optional dependency: a library user who keeps keys in memory runs without it,
 * and one who asks for a durable state without it is told what to add. Run in a child JVM whose
 * class path is this one's without the rocksdbjni jar.
 */
class WithoutRocksDbTest {

  @TempDir Path dir;

  /** The child: an in-memory deduplicator, then a durable one that must say what is missing. */
  public static void main(String[] args) throws Exception {
    int kept = 0;
    try (Deduplicator d = Idem.deduplicator().expectedKeys(10_000).build()) {
      for (int i = 0; i < 20_000; i++) {
        kept += d.firstSeen("key-" + (i % 10_000)) ? 1 : 0;
      }
    }
    System.out.println("kept " + kept);
    try {
      Idem.deduplicator().state(Path.of(args[0])).open();
      System.out.println("opened without RocksDB?");
    } catch (IllegalStateException e) {
      System.out.println("refused: " + e.getMessage());
    }
  }

  @Test
  void anInMemoryDeduplicatorRunsWithoutRocksDbAndADurableOneSaysWhatToAdd() throws Exception {
    String classPath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.contains("rocksdbjni"))
            .collect(Collectors.joining(File.pathSeparator));
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                WithoutRocksDbTest.class.getName(),
                dir.resolve("state").toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out)
        .contains("kept 10000")
        .contains("refused: a durable deduplicator (state(dir)) keeps its keys in RocksDB")
        .contains("org.rocksdb:rocksdbjni");
    assertThat(Files.exists(dir.resolve("state"))).as("nothing created").isFalse();
  }
}
