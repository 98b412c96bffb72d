package dev.idem.flink.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonFieldsTest {
  private static JsonRecord read(JsonFields fields, String json) {
    return fields.read(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void readsAFieldOrAPointerAndKeepsTheBytes() {
    String json = "{\"id\":\"a\",\"meta\":{\"url\":\"u/1\",\"n\":7}}";
    JsonRecord byField = read(new JsonFields("id", null), json);
    assertThat(byField.key).isEqualTo("a");
    assertThat(new String(byField.bytes, StandardCharsets.UTF_8)).isEqualTo(json);
    assertThat(read(new JsonFields("/meta/url", null), json).key).isEqualTo("u/1");
    // a number's key is its JSON text
    assertThat(read(new JsonFields("/meta/n", null), json).key).isEqualTo("7");
    // a field name with a slash is a field, not a pointer, unless it starts with one
    assertThat(read(new JsonFields("a/b", null), "{\"a/b\":\"x\"}").key).isEqualTo("x");
  }

  @Test
  void readsEventTimeAsMillisOrIsoInstant() {
    JsonFields fields = new JsonFields("id", "at");
    assertThat(read(fields, "{\"id\":1,\"at\":1700000000000}").eventTime)
        .isEqualTo(1_700_000_000_000L);
    assertThat(read(fields, "{\"id\":1,\"at\":\"2025-12-02T10:00:00Z\"}").eventTime)
        .isEqualTo(1_764_669_600_000L);
    assertThat(read(new JsonFields("id", null), "{\"id\":1}").eventTime).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void badRecordsAreNull() {
    JsonFields fields = new JsonFields("id", null);
    assertThat(read(fields, "not json")).isNull();
    assertThat(read(fields, "{\"other\":1}")).isNull();
    assertThat(read(fields, "{\"id\":null}")).isNull();
    assertThat(read(fields, "[1,2]")).isNull();
    assertThat(read(fields, "")).isNull();
    JsonFields timed = new JsonFields("id", "at");
    assertThat(read(timed, "{\"id\":1}")).isNull();
    assertThat(read(timed, "{\"id\":1,\"at\":\"yesterday\"}")).isNull();
  }
}
