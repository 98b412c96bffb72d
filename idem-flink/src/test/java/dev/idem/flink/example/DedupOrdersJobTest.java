package dev.idem.flink.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The documentation's example job runs as written and keeps the first line of each order. */
class DedupOrdersJobTest {

  @RegisterExtension static final MiniClusterExtension CLUSTER = new MiniClusterExtension();

  @TempDir Path dir;

  @Test
  void keepsTheFirstLineOfEachOrder() throws Exception {
    Path input = dir.resolve("orders.csv");
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      lines.add("order-" + (i % 1000) + ",item-" + i);
    }
    Files.write(input, lines);
    Path output = dir.resolve("out");
    DedupOrdersJob.main(
        new String[] {
          input.toUri().toString(),
          output.toUri().toString(),
          dir.resolve("checkpoints").toUri().toString()
        });

    List<String> written = new ArrayList<>();
    try (Stream<Path> files = Files.walk(output)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f) && !f.getFileName().toString().startsWith(".")) {
          written.addAll(Files.readAllLines(f));
        }
      }
    }
    assertThat(written).containsExactlyInAnyOrderElementsOf(lines.subList(0, 1000));
  }
}
