package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every filter type through build, query, stats and verify, with its own options. */
class FilterTypesCommandTest {

  @TempDir Path dir;

  private Path keys(int from, int to) throws IOException {
    Path file = dir.resolve("keys-" + from + ".txt");
    Files.writeString(
        file,
        IntStream.range(from, to)
            .mapToObj(i -> "key-" + i)
            .collect(Collectors.joining("\n", "", "\n")));
    return file;
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "scalable|--expected 500|layers",
        "scalable|--expected 1000 --slice-keys 1000 --max-layers 4|max layers",
        "counting|--expected 5000 --counter-bits 8|counter bits",
        "cuckoo|--expected 5000|fingerprint bits",
        "cuckoo|--expected 5000 --fingerprint-bits 16|fingerprint bits",
        "exact|--expected 100|load factor",
      })
  void buildQueryStatsForEveryType(String type, String options, String statsField)
      throws IOException {
    Path idx = dir.resolve(type + ".idx");
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "filter", "build", "--type", type, "-o", idx.toString(), keys(0, 3000).toString()));
    args.addAll(List.of(options.split(" ")));
    Cli.Result build = Cli.run(args.toArray(String[]::new));
    assertThat(build.status()).as(build.err()).isZero();
    assertThat(build.err()).contains(type + " filter").doesNotContain("warning");

    Cli.Result present =
        Cli.runWithInput(Files.readAllBytes(keys(0, 3000)), "filter", "query", idx.toString());
    assertThat(present.out().lines()).hasSize(3000).allMatch(l -> l.endsWith("\tmaybe"));
    Cli.Result fresh =
        Cli.runWithInput(
            Files.readAllBytes(keys(10_000, 13_000)), "filter", "query", idx.toString());
    assertThat(fresh.out().lines().filter(l -> l.endsWith("\tnew")).count()).isGreaterThan(2900);

    Cli.Result stats = Cli.run("filter", "stats", idx.toString());
    assertThat(stats.status()).isZero();
    assertThat(stats.out()).containsPattern("type +" + type).contains(statsField);
  }

  @Test
  void verifyGrowsAScalableFilterPastItsInitialCapacity() {
    Cli.Result r =
        Cli.run(
            "filter",
            "verify",
            "--type",
            "scalable",
            "-n",
            "1000",
            "--insert",
            "100k",
            "--fpp",
            "0.01");
    assertThat(r.status()).as(r.out()).isZero();
    assertThat(r.out()).contains("100,000 keys inserted").contains("layers 7").contains("PASS");
  }

  @Test
  void verifyReportsTheCuckooWidthAsTheTarget() {
    Cli.Result r =
        Cli.run("filter", "verify", "--type", "cuckoo", "-n", "100k", "--fingerprint-bits", "8");
    assertThat(r.status()).as(r.out()).isZero();
    assertThat(r.out()).contains("fingerprint bits 8").contains("target    2.98");
  }

  @Test
  void aCuckooFilterThatOverflowsIsNotWritten() throws IOException {
    Path idx = dir.resolve("c.idx");
    Cli.Result r =
        Cli.run(
            "filter",
            "build",
            "--type",
            "cuckoo",
            "--expected",
            "1000",
            "-o",
            idx.toString(),
            keys(0, 3000).toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err())
        .contains("not written")
        .contains("cuckoo filter is full")
        .contains("raise --expected");
    assertThat(Files.exists(idx)).isFalse();
  }
}
