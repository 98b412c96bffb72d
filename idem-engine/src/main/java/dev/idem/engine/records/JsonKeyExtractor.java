package dev.idem.engine.records;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The key of a JSON Lines record: the value at a field path, found with Jackson's streaming parser
 * (no object tree). The whole record is still tokenised, so a line that is not one valid JSON
 * object is refused even when the key comes first.
 *
 * <p>The key is the value as text: a string after unescaping (so {@code "caf\u00e9"} and {@code
 * "café"} are one key), a number or boolean as written. A missing or null field, or an object or
 * array where the key should be, makes the record bad. For a content key the value must be a
 * string.
 */
final class JsonKeyExtractor implements KeyExtractor {

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxStringLength(Integer.MAX_VALUE)
                  .maxNestingDepth(1000)
                  .build())
          .build();

  private final List<String> path;
  private final boolean content;
  private final String pointer;
  private KeyBuffer out;
  private String error;
  private boolean found;

  JsonKeyExtractor(KeySpec.JsonField spec) {
    this.path = spec.path();
    this.content = spec.content();
    this.pointer = spec.describe().substring(spec.describe().indexOf(':') + 1);
  }

  @Override
  public KeyExtractor copy() {
    return new JsonKeyExtractor(path, content, pointer);
  }

  private JsonKeyExtractor(List<String> path, boolean content, String pointer) {
    this.path = path;
    this.content = content;
    this.pointer = pointer;
  }

  @Override
  public String extract(byte[] record, int offset, int length, KeyBuffer out) {
    this.out = out;
    this.error = null;
    this.found = false;
    try (JsonParser p = FACTORY.createParser(record, offset, length)) {
      JsonToken t = p.nextToken();
      if (t != JsonToken.START_OBJECT) {
        return t == null ? "empty record" : "not a JSON object (starts with " + t.asString() + ")";
      }
      walkObject(p, 0);
      if (p.nextToken() != null) {
        return "malformed JSON: text after the end of the object";
      }
    } catch (JsonProcessingException e) {
      return "malformed JSON: " + e.getOriginalMessage();
    } catch (IOException e) {
      return "unreadable JSON: " + e.getMessage();
    }
    if (error != null) {
      return error;
    }
    return found ? null : "no field " + pointer + hint(record, offset, length);
  }

  /**
   * What the record has instead, for a missing field: its top-level fields, and for a name with
   * dots, the pointer that names a field inside an object ({@code meta.url} → {@code /meta/url}).
   */
  private String hint(byte[] record, int offset, int length) {
    StringBuilder h = new StringBuilder();
    if (path.size() == 1 && path.get(0).contains(".")) {
      h.append(" (a field inside an object is named by a JSON Pointer: did you mean --key /")
          .append(path.get(0).replace("~", "~0").replace("/", "~1").replace('.', '/'))
          .append("?)");
    }
    List<String> fields = new java.util.ArrayList<>();
    try (JsonParser p = FACTORY.createParser(record, offset, length)) {
      if (p.nextToken() == JsonToken.START_OBJECT) {
        while (p.nextToken() == JsonToken.FIELD_NAME && fields.size() < 10) {
          fields.add(p.currentName());
          p.nextToken();
          p.skipChildren();
        }
      }
    } catch (IOException e) {
      return h.toString(); // the record parsed once already; nothing more to say
    }
    if (!fields.isEmpty()) {
      h.append(" (this record's fields: ").append(String.join(", ", fields)).append(')');
    }
    return h.toString();
  }

  private void walkObject(JsonParser p, int depth) throws IOException {
    JsonToken t;
    while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      visitValue(p, depth, name.equals(path.get(depth)));
    }
    if (t != JsonToken.END_OBJECT) {
      throw new IOException("unexpected " + t);
    }
  }

  private void walkArray(JsonParser p, int depth) throws IOException {
    int index = 0;
    while (p.nextToken() != JsonToken.END_ARRAY) {
      visitValue(p, depth, path.get(depth).equals(Integer.toString(index)));
      index++;
    }
  }

  /** The parser is on a value; consume all of it, capturing the key if this is the spot. */
  private void visitValue(JsonParser p, int depth, boolean onPath) throws IOException {
    JsonToken t = p.currentToken();
    if (!onPath || found) {
      p.skipChildren();
      return;
    }
    if (depth == path.size() - 1) {
      found = true;
      capture(p, t);
      p.skipChildren();
    } else if (t == JsonToken.START_OBJECT) {
      walkObject(p, depth + 1);
    } else if (t == JsonToken.START_ARRAY) {
      walkArray(p, depth + 1);
    }
  }

  private void capture(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case VALUE_STRING -> {
        byte[] text = p.getText().getBytes(StandardCharsets.UTF_8);
        out.set(text, 0, text.length);
      }
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT, VALUE_TRUE, VALUE_FALSE -> {
        if (content) {
          error = "content field " + pointer + " is not a string";
          return;
        }
        byte[] text = p.getText().getBytes(StandardCharsets.US_ASCII);
        out.set(text, 0, text.length);
      }
      case VALUE_NULL -> error = "field " + pointer + " is null";
      default ->
          error =
              "field "
                  + pointer
                  + " is "
                  + (t == JsonToken.START_ARRAY ? "an array" : "an object")
                  + ", not a text or number";
    }
  }
}
