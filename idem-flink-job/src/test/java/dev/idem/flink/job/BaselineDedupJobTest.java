package dev.idem.flink.job;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The baselines' command line; what they output is checked by {@link ClusterDedupBenchmark} on
 * every run (exactly the first record of every key, or the run fails).
 */
class BaselineDedupJobTest {
  private static final String[] OPTIONS = {
    "--source",
    "kafka://b:9092/in",
    "--sink",
    "kafka://b:9092/out",
    "--key",
    "id",
    "--expected-keys",
    "1000"
  };

  @Test
  void theFirstArgumentNamesTheBaseline() {
    assertThatThrownBy(() -> BaselineDedupJob.main(OPTIONS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("value-state or sql");
    assertThatThrownBy(() -> BaselineDedupJob.main(new String[0]))
        .hasMessageContaining("value-state or sql");
  }

  @Test
  void onlyExactModeHasABaseline() {
    List<String> args = new ArrayList<>(List.of("sql"));
    args.addAll(List.of(OPTIONS));
    args.addAll(List.of("--mode", "approximate", "--fpp", "0.01"));
    assertThatThrownBy(() -> BaselineDedupJob.main(args.toArray(new String[0])))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("drop --mode");
  }
}
