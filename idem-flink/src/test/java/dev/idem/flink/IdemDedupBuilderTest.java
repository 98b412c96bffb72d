package dev.idem.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;

/** Settings that do not fit together are refused when the job is built, saying what to do. */
class IdemDedupBuilderTest {

  private final StreamExecutionEnvironment env =
      StreamExecutionEnvironment.getExecutionEnvironment();
  private final DataStream<String> stream = env.fromData("a", "b", "a");

  @Test
  void aKeyIsRequired() {
    assertThatThrownBy(() -> IdemDedup.of(stream).expectedKeys(10).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("call key(selector)");
  }

  @Test
  void filterModesNeedExpectedKeys() {
    assertThatThrownBy(() -> IdemDedup.of(stream).key(s -> s).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("call expectedKeys(n)");
    assertThatThrownBy(() -> IdemDedup.of(stream).key(s -> s).expectedKeys(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1");
  }

  @Test
  void ratesOutsideZeroToOneAreRefused() {
    assertThatThrownBy(() -> IdemDedup.of(stream).approximate(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 0 and 1");
    assertThatThrownBy(() -> IdemDedup.of(stream).falsePositiveRate(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0.01");
  }

  @Test
  void windowsAreExactAndNeedNoFilterSize() {
    assertThatThrownBy(
            () ->
                IdemDedup.of(stream)
                    .key(s -> s)
                    .approximate(0.01)
                    .withinWindow(Duration.ofMinutes(1))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("drop approximate(p)");
    assertThatThrownBy(
            () ->
                IdemDedup.of(stream)
                    .key(s -> s)
                    .expectedKeys(10)
                    .inTumblingWindows(Duration.ofMinutes(1))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("drop expectedKeys(n)");
    assertThatThrownBy(() -> IdemDedup.of(stream).withinWindow(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1 ms");
  }

  @Test
  void latenessSettingsNeedAWindow() {
    OutputTag<String> late = new OutputTag<>("late", Types.STRING);
    assertThatThrownBy(
            () ->
                IdemDedup.of(stream).key(s -> s).expectedKeys(10).sideOutputLateData(late).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("add withinWindow");
    assertThatThrownBy(() -> IdemDedup.of(stream).allowedLateness(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative");
  }

  @Test
  void eachModeNamesItsOperator() {
    assertThat(IdemDedup.of(stream).key(s -> s).expectedKeys(10).build().getName())
        .isEqualTo("IdemDedup(exact)");
    assertThat(
            IdemDedup.of(stream).key(s -> s).approximate(0.01).expectedKeys(10).build().getName())
        .isEqualTo("IdemDedup(approximate)");
    assertThat(
            IdemDedup.of(stream)
                .key(s -> s)
                .inTumblingWindows(Duration.ofMinutes(10))
                .build()
                .getName())
        .isEqualTo("IdemDedup(tumbling PT10M)");
  }
}
