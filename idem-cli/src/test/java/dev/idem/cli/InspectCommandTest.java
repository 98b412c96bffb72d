package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code idem inspect} describes the states that earlier versions of idem wrote, of every job, as
 * they lie on disk (states written by this version: InspectTest).
 */
class InspectCommandTest {

  private static final Path JOBS = Path.of("src", "test", "resources", "states", "v1", "jobs");

  @ParameterizedTest
  @CsvSource({
    "st-partitioned, dedup",
    "st-sort, sort-dedup (SORT-DEDUP.json, layout version 1)",
    "st-neardup, near-dup (NEAR-DUP.json, layout version 1)",
    "split-out, split (checkpoint.json, layout version 1)"
  })
  void aStateOfAnEarlierVersionIsDescribed(String state, String kind) {
    Cli.Result r = Cli.run("inspect", JOBS.resolve(state).toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("checkpoint").contains("in.jsonl");
    if (!kind.equals("dedup")) {
      assertThat(r.out()).contains("kind        " + kind);
    }
  }
}
