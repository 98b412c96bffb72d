package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** idem plan: a sampled input gives a table and a command that runs; bad numbers are refused. */
class PlanCommandTest {

  @TempDir Path dir;

  private static final String[] METHODS = {
    "HashSet<String>",
    "FingerprintSet",
    "classic Bloom",
    "blocked Bloom",
    "partitioned Bloom",
    "scalable Bloom",
    "counting Bloom",
    "cuckoo 8-bit",
    "cuckoo 12-bit",
    "cuckoo 16-bit",
    "exact set in memory",
    "partitioned (two reads)",
    "two-tier + RocksDB",
    "external sort-merge",
    "windowed"
  };

  /** 3,000 records, ids 0..1999 each at least once. */
  private Path clicks() throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 3000; i++) {
      b.append("{\"id\":\"u")
          .append(i < 2000 ? i : (i * 7) % 2000)
          .append("\",\"n\":")
          .append(i)
          .append("}\n");
    }
    return Files.writeString(dir.resolve("clicks.jsonl"), b);
  }

  @Test
  void aSampledInputGivesEveryMethodAndACommandThatRuns() throws IOException {
    Path in = clicks();
    Cli.Result r = Cli.run("plan", "--sample", in.toString(), "--key", "id");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains(METHODS).contains("records       3,000 (0 without");
    String command =
        r.out()
            .lines()
            .dropWhile(l -> !l.startsWith("Recommended:"))
            .filter(l -> l.startsWith("  idem "))
            .findFirst()
            .orElseThrow()
            .strip();
    assertThat(command).startsWith("idem dedup --key id --expected ").contains(in.toString());
    // run it, with the state and output in the test's directory
    List<String> args = new ArrayList<>(Arrays.asList(command.split(" ")));
    args.remove(0);
    args.replaceAll(
        a ->
            a.equals("state")
                ? dir.resolve("state").toString()
                : a.equals("deduped.jsonl") ? dir.resolve("out.jsonl").toString() : a);
    Cli.Result run = Cli.run(args.toArray(String[]::new));
    assertThat(run.status()).as(run.err()).isZero();
    assertThat(Files.readAllLines(dir.resolve("out.jsonl"))).hasSize(2000);
  }

  @Test
  void jsonHasTheSameNumbers() throws IOException {
    Cli.Result r =
        Cli.run("plan", "--distinct", "100M", "--fpp", "0.01", "--memory", "1g", "--json");
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode plan = new ObjectMapper().readTree(r.out());
    JsonNode classic = null;
    for (JsonNode m : plan.get("methods")) {
      if (m.get("method").asText().equals("classic Bloom")) {
        classic = m;
      }
    }
    assertThat(classic).isNotNull();
    // 1e8 keys at 1 %: about 114 MiB, k = 7 (Bloom 1970; docs/DESIGN.md, section 5)
    assertThat(classic.get("memory_bytes").asLong() / (double) (1 << 20)).isBetween(114.0, 115.0);
    assertThat(plan.get("recommendation").get("command").asText())
        .contains("--mode approximate", "--fpp 0.01");
  }

  @Test
  void missingOrImpossibleNumbersAreUsageErrors() {
    String[][] cases = {
      {"plan"},
      {"plan", "--records", "10", "--distinct", "20"},
      {"plan", "--distinct", "10", "--stream"},
      {"plan", "--distinct", "10", "--fpp", "0.1", "--exact"},
      {"plan", "--key", "id", "--distinct", "10"},
      {"plan", "--distinct", "10", "--shared-state", "zookeeper"},
    };
    for (String[] c : cases) {
      Cli.Result r = Cli.run(c);
      assertThat(r.status()).as(String.join(" ", c) + ": " + r.err()).isEqualTo(2);
      assertThat(r.err().lines().count()).as(r.err()).isLessThanOrEqualTo(2);
      assertThat(r.err()).doesNotContain("Exception");
    }
  }

  @Test
  void anExactJobWithTooLittleMemoryIsToldWhatItNeeds() {
    Cli.Result r = Cli.run("plan", "--distinct", "2G", "--memory", "512k");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("Recommended: none fits", "needs a heap of 34.0 MiB");
  }

  @Test
  void dedupExpectedAutoSizesTheFilterFromTheDistinctKeys() throws IOException {
    Path in = clicks();
    Cli.Result r = Cli.run("dedup", "--key", "id", "--expected", "auto", in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out().lines()).hasSize(2000);
    assertThat(r.err()).contains("--expected auto: 3,000 records read, about ");
    // sized for ~2,000 distinct keys, not the 3,000 records
    assertThat(r.err()).containsPattern("the key tiers are sized for (1,9|2,0|2,1)\\d\\d\\b");
    Cli.Result stdin =
        Cli.runWithInput("{\"id\":1}\n", "dedup", "--key", "id", "--expected", "auto", "-");
    assertThat(stdin.status()).isNotZero();
    assertThat(stdin.err()).contains("standard input");
  }

  @Test
  void anInputWhoseKeysAreAllDistinctIsPlannable() throws IOException {
    // the sample's upper estimate passes the record count when every key is distinct
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 101_947; i++) {
      b.append("https://example.com/").append(i).append('\n');
    }
    Path urls = Files.writeString(dir.resolve("urls.txt"), b);
    Cli.Result r = Cli.run("plan", "--sample", urls.toString(), "--whole-line");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("Workload: 101,947 records, 101,947 distinct keys")
        .contains("Recommended: exact set in memory")
        .contains("--expected 101947");
    // given both, more distinct keys than records is still a mistake
    Cli.Result both = Cli.run("plan", "--records", "10", "--distinct", "20");
    assertThat(both.status()).isEqualTo(2);
    assertThat(both.err()).contains("--records (10) cannot be fewer than --distinct (20)");
  }

  @Test
  void theReportFitsAnEightyColumnTerminalButForTheCommandToCopy() throws IOException {
    Path in = clicks();
    String[][] plans = {
      {"plan", "--records", "3G", "--distinct", "2G", "--memory", "8g"},
      {"plan", "--distinct", "100M", "--fpp", "0.01", "--memory", "1g"},
      {"plan", "--distinct", "2G", "--memory", "512k"},
      {"plan", "--stream", "--window", "10m", "--keys-per-window", "5M"},
      {"plan", "--sample", in.toString(), "--key", "id", "--memory", "256m"},
      {"plan", "--near-dup", "--records", "100M", "--verify", "--memory", "1g"},
    };
    for (String[] plan : plans) {
      Cli.Result r = Cli.run(plan);
      assertThat(r.status()).as(r.err()).isZero();
      assertThat(r.out().lines().filter(l -> !l.startsWith("  idem ")))
          .as(String.join(" ", plan))
          .allMatch(l -> l.length() <= 80, "at most 80 columns");
    }
  }

  @Test
  void theHeapAdviceSaysWhatBinIdemDoes() {
    // a command with --memory: bin/idem passes the heap limit itself
    Cli.Result partitioned =
        Cli.run("plan", "--records", "3G", "--distinct", "2G", "--memory", "8g");
    assertThat(partitioned.out())
        .contains("--memory 8192m")
        .contains("bin/idem starts the JVM with the heap limit that --memory needs")
        .doesNotContain("IDEM_JAVA_OPTS=-Xmx8g holds");
    // one without: --memory would hold it
    Cli.Result inMemory = Cli.run("plan", "--distinct", "1M", "--memory", "1g");
    assertThat(inMemory.out())
        .contains("Recommended: exact set in memory")
        .contains("add --memory 1024m to hold bin/idem's heap to the budget");
  }
}
