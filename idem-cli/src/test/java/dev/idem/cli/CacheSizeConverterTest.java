package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class CacheSizeConverterTest {

  private final CacheSizeConverter converter = new CacheSizeConverter();

  @Test
  void autoIsAQuarterOfTheHeapAndNeverBelowTheOldDefault() {
    long auto = CacheSizeConverter.resolve(converter.convert("auto"));
    assertThat(auto).isEqualTo(Math.max(64L << 20, Runtime.getRuntime().maxMemory() / 4));
    assertThat(CacheSizeConverter.resolve(converter.convert(" AUTO "))).isEqualTo(auto);
  }

  @Test
  void explicitSizesAreTakenAsGiven() {
    assertThat(CacheSizeConverter.resolve(converter.convert("1g"))).isEqualTo(1L << 30);
    assertThat(CacheSizeConverter.resolve(converter.convert("8m"))).isEqualTo(8L << 20);
    assertThatThrownBy(() -> converter.convert("0")).isInstanceOf(TypeConversionException.class);
    assertThatThrownBy(() -> converter.convert("lots")).isInstanceOf(TypeConversionException.class);
  }
}
