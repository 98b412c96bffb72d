package dev.idem.flink.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobOptionsTest {
  private static final List<String> KAFKA =
      List.of("--source", "kafka://b1:9092,b2:9092/clicks", "--sink", "kafka://b1:9092/unique");

  private static JobOptions parse(String... more) {
    List<String> args = new ArrayList<>(KAFKA);
    args.addAll(List.of(more));
    return JobOptions.parse(args.toArray(new String[0]));
  }

  @Test
  void exactModeReadsEndpointsAndDefaults() {
    JobOptions o = parse("--key", "id", "--expected-keys", "1000000");
    assertThat(o.mode).isEqualTo(JobOptions.Mode.EXACT);
    assertThat(o.sourceEndpoint.brokers()).isEqualTo("b1:9092,b2:9092");
    assertThat(o.sourceEndpoint.topic()).isEqualTo("clicks");
    assertThat(o.sinkEndpoint.topic()).isEqualTo("unique");
    assertThat(o.checkpointInterval).isEqualTo(Duration.ofSeconds(10));
    assertThat(o.transactionalIdPrefixOrDefault()).isEqualTo("idem-unique");
    assertThat(o.groupId).isEqualTo("idem-dedup");
  }

  @Test
  void windowModeReadsDurations() {
    JobOptions o =
        parse(
            "--key",
            "/meta/user",
            "--mode",
            "window",
            "--window",
            "10m",
            "--sliding",
            "--time-field",
            "at",
            "--max-delay",
            "30s",
            "--late-topic",
            "late");
    assertThat(o.window).isEqualTo(Duration.ofMinutes(10));
    assertThat(o.sliding).isTrue();
    assertThat(o.maxDelayOrZero()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.allowedLatenessOrZero()).isZero();
  }

  @Test
  void badArgumentsNameTheOptionAndWhatToChange() {
    assertThatThrownBy(() -> parse("--key", "id")).hasMessageContaining("--expected-keys N");
    assertThatThrownBy(() -> parse("--key", "id", "--expected-keys", "10", "--mode", "fuzzy"))
        .hasMessageContaining("give exact, approximate or window");
    assertThatThrownBy(() -> parse("--key", "id", "--mode", "window", "--window", "10 minutes"))
        .hasMessageContaining("not a duration");
    assertThatThrownBy(() -> parse("--key", "id", "--mode", "window", "--window", "10m"))
        .hasMessageContaining("--time-field");
    assertThatThrownBy(() -> parse("--key", "id", "--expected-keys", "10", "--window", "10m"))
        .hasMessageContaining("add --mode window");
    assertThatThrownBy(() -> parse("--key", "id", "--mode", "approximate", "--expected-keys", "9"))
        .hasMessageContaining("--fpp P");
    assertThatThrownBy(() -> parse("--key", "id", "--expected-keys", "10", "--fpp", "1.5"))
        .hasMessageContaining("--fpp 1.5");
    assertThatThrownBy(
            () ->
                JobOptions.parse(
                    "--source",
                    "kafka://localhost:9092",
                    "--sink",
                    "file:///out",
                    "--key",
                    "id",
                    "--expected-keys",
                    "10"))
        .hasMessageContaining("--source kafka://localhost:9092: a Kafka endpoint is");
    assertThatThrownBy(
            () ->
                JobOptions.parse(
                    "--source",
                    "s3://bucket/x",
                    "--sink",
                    "file:///out",
                    "--key",
                    "id",
                    "--expected-keys",
                    "10"))
        .hasMessageContaining("--source s3://bucket/x: give kafka://");
    assertThatThrownBy(
            () ->
                JobOptions.parse(
                    "--source",
                    "file:///in",
                    "--sink",
                    "file:///out",
                    "--key",
                    "id",
                    "--mode",
                    "window",
                    "--window",
                    "1m",
                    "--time-field",
                    "t",
                    "--late-topic",
                    "late"))
        .hasMessageContaining("--late-topic needs a Kafka --sink");
    assertThatThrownBy(() -> JobOptions.parse("--sink", "file:///out", "--key", "id"))
        .hasMessageContaining("--source");
  }
}
