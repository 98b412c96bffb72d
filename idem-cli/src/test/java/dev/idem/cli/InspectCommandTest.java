package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code idem inspect} describes a dedup job's state, and names the other jobs' states for what
 * they are instead of calling them "not an idem state directory".
 */
class InspectCommandTest {

  private static final Path JOBS = Path.of("src", "test", "resources", "states", "v1", "jobs");

  @Test
  void aDedupStateIsDescribed() {
    Cli.Result r = Cli.run("inspect", JOBS.resolve("st-partitioned").toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("checkpoint").contains("inputs");
  }

  @Test
  void theStatesOfOtherJobsAreNamedAndRefused() {
    String[][] cases = {
      {"st-sort", "an idem sort-dedup job"},
      {"st-neardup", "an idem near-dup job"},
      {"st-parquet", "a Parquet dedup job or a library Deduplicator"},
    };
    for (String[] c : cases) {
      Cli.Result r = Cli.run("inspect", JOBS.resolve(c[0]).toString());
      assertThat(r.status()).as(r.err()).isEqualTo(1);
      assertThat(r.err())
          .contains("is the state of " + c[1])
          .contains("idem inspect describes the states of dedup jobs on text records only")
          .doesNotContain("Exception");
    }
  }
}
