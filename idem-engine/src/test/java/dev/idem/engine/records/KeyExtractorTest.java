package dev.idem.engine.records;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

class KeyExtractorTest {

  private static byte[] json(String id, boolean escapeNonAscii, String before) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    JsonFactory f =
        JsonFactory.builder().configure(JsonWriteFeature.ESCAPE_NON_ASCII, escapeNonAscii).build();
    try (JsonGenerator g = f.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("before", before);
      g.writeObjectFieldStart("meta");
      g.writeStringField("id", id);
      g.writeEndObject();
      g.writeEndObject();
    }
    return out.toByteArray();
  }

  @Property
  void theJsonKeyIsTheUnescapedTextWhateverTheEscaping(@ForAll String id, @ForAll String before)
      throws IOException {
    KeyExtractor x = KeyExtractor.of(KeySpec.jsonField("/meta/id", false), RecordFormat.JSONL);
    KeyBuffer raw = new KeyBuffer();
    KeyBuffer escaped = new KeyBuffer();
    byte[] a = json(id, false, before);
    byte[] b = json(id, true, before);
    assertThat(x.extract(a, 0, a.length, raw)).isNull();
    assertThat(x.extract(b, 0, b.length, escaped)).isNull();
    byte[] expected = id.getBytes(StandardCharsets.UTF_8);
    assertThat(Arrays.copyOf(raw.bytes(), raw.length())).isEqualTo(expected);
    assertThat(Arrays.copyOf(escaped.bytes(), escaped.length())).isEqualTo(expected);
  }

  /** RFC 4180 writing: quote when needed, double the quotes. */
  private static String csvField(String v) {
    return v.matches("[^,\"\r\n]*") ? v : "\"" + v.replace("\"", "\"\"") + "\"";
  }

  @Property
  void theCsvKeyIsTheFieldValueWhateverTheQuoting(
      @ForAll @Size(min = 1, max = 6) List<String> fields) {
    KeyExtractor x =
        KeyExtractor.of(KeySpec.column(String.valueOf(fields.size())), RecordFormat.CSV);
    String record = String.join(",", fields.stream().map(KeyExtractorTest::csvField).toList());
    byte[] bytes = record.getBytes(StandardCharsets.UTF_8);
    KeyBuffer key = new KeyBuffer();
    assertThat(x.extract(bytes, 0, bytes.length, key)).isNull();
    assertThat(new String(key.bytes(), 0, key.length(), StandardCharsets.UTF_8))
        .isEqualTo(fields.get(fields.size() - 1));
  }
}
