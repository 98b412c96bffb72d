package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** idem dedup --window: the click example, time formats, late data, bad times. */
class WindowedDedupCommandTest {

  @TempDir Path dir;

  private static final String CLICKS =
      """
      {"click":"user42/ad7","at":"2025-12-02T10:02:00Z"}
      {"click":"user42/ad7","at":"2025-12-02T10:07:30Z"}
      {"click":"user9/ad1","at":"2025-12-02T10:09:00Z"}
      {"click":"user9/ad1","at":"2025-12-02T11:11:00+01:00"}
      {"click":"user42/ad7","at":"2025-12-02T10:30:00Z"}
      {"click":"user9/ad1","at":"2025-12-02T10:01:00Z"}
      """;

  @Test
  void theSameUserClickingTheSameAdWithinTenMinutesIsOneClick() throws IOException {
    Path in = dir.resolve("clicks.jsonl");
    Files.writeString(in, CLICKS);
    Cli.Result tumbling =
        Cli.run(
            "dedup",
            "--key",
            "click",
            "--window",
            "10m",
            "--time-field",
            "at",
            "--time-format",
            "iso",
            in.toString());
    assertThat(tumbling.status()).as(tumbling.err()).isZero();
    // 10:09 and 10:11 fall in two tumbling windows; 10:01 after 10:30 is late (dropped)
    assertThat(tumbling.out().lines())
        .containsExactly(
            "{\"click\":\"user42/ad7\",\"at\":\"2025-12-02T10:02:00Z\"}",
            "{\"click\":\"user9/ad1\",\"at\":\"2025-12-02T10:09:00Z\"}",
            "{\"click\":\"user9/ad1\",\"at\":\"2025-12-02T11:11:00+01:00\"}",
            "{\"click\":\"user42/ad7\",\"at\":\"2025-12-02T10:30:00Z\"}");
    assertThat(tumbling.err()).contains("1 late events");
    Cli.Result sliding =
        Cli.run(
            "dedup",
            "--key",
            "click",
            "--window",
            "10m",
            "--sliding",
            "--time-field",
            "at",
            "--time-format",
            "iso",
            "--late",
            "emit",
            in.toString());
    // 10:09 and 10:11 are 2 minutes apart: one click; the late 10:01 is emitted
    assertThat(sliding.out().lines())
        .containsExactly(
            "{\"click\":\"user42/ad7\",\"at\":\"2025-12-02T10:02:00Z\"}",
            "{\"click\":\"user9/ad1\",\"at\":\"2025-12-02T10:09:00Z\"}",
            "{\"click\":\"user42/ad7\",\"at\":\"2025-12-02T10:30:00Z\"}",
            "{\"click\":\"user9/ad1\",\"at\":\"2025-12-02T10:01:00Z\"}");
  }

  @Test
  void allowedLatenessKeepsStateForStragglersAndSideOutputCatchesTheRest() throws IOException {
    Path in = dir.resolve("in.csv");
    Files.writeString(in, "k,t\na,1000\nb,65000\na,2000\nc,200000\na,3000\n");
    Path late = dir.resolve("late.csv");
    Cli.Result r =
        Cli.run(
            "dedup",
            "--column",
            "k",
            "--window",
            "1m",
            "--time-field",
            "t",
            "--allowed-lateness",
            "30s",
            "--late",
            "side-output=" + late,
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    // a@2000 arrives when the watermark is 65 s: window [0, 60 s) is kept until 90 s: duplicate
    assertThat(r.out()).isEqualTo("k,t\na,1000\nb,65000\nc,200000\n");
    assertThat(Files.readString(late)).isEqualTo("a,3000\n");
  }

  @Test
  void secondsAndBadTimesAreHandled() throws IOException {
    Path in = dir.resolve("in.jsonl");
    Files.writeString(in, "{\"k\":1,\"t\":1.5}\n{\"k\":1,\"t\":\"soon\"}\n{\"k\":1}\n");
    Cli.Result r =
        Cli.run(
            "dedup",
            "--key",
            "k",
            "--window",
            "1s",
            "--time-field",
            "t",
            "--time-format",
            "seconds",
            "--on-bad-record",
            "skip",
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("{\"k\":1,\"t\":1.5}\n");
    assertThat(r.err()).contains("2 bad records");
    Cli.Result fail =
        Cli.run(
            "dedup",
            "--key",
            "k",
            "--window",
            "1s",
            "--time-field",
            "t",
            "--time-format",
            "seconds",
            in.toString());
    assertThat(fail.status()).isEqualTo(1);
    assertThat(fail.err()).contains(":2: event time 'soon' is not epoch seconds");
  }

  @Test
  void windowOptionsNeedAWindow() {
    Cli.Result r = Cli.run("dedup", "--key", "k", "--sliding", "x.jsonl");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("--window");
  }
}
