package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder starts at {@code idem serve}'s defaults and refuses a bad value where it is set. */
class ServerConfigTest {

  private final ServerConfig.Builder b = ServerConfig.builder(Path.of("state"));

  @Test
  void theDefaultsAreTheCommands() {
    ServerConfig c = b.build();
    assertThat(c.bind()).isEqualTo("127.0.0.1");
    assertThat(c.port()).isEqualTo(6379);
    assertThat(c.password()).isNull();
    assertThat(c.metricsPort()).isEqualTo(-1);
    assertThat(c.saveEvery()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void badValuesAreRefusedWhereTheyAreSet() {
    assertThatThrownBy(() -> b.port(70_000)).hasMessageContaining("port must be 0 to 65535");
    assertThatThrownBy(() -> b.port(-1)).hasMessageContaining("got -1");
    assertThatThrownBy(() -> b.metricsPort(-2)).hasMessageContaining("metrics port");
    assertThatThrownBy(() -> b.limits(1, 1, 1, 0, 1, 1)).hasMessageContaining("at least 1, got 0");
    assertThatThrownBy(() -> b.filterMemory(0)).hasMessageContaining("must be positive");
    assertThatThrownBy(() -> b.saveEvery(Duration.ZERO)).hasMessageContaining("must be positive");
    assertThat(b.port(0).metricsPort(0).build().port()).isZero();
  }
}
