package dev.idem.engine.run;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.deser.std.FromStringDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializerBase;
import dev.idem.core.filter.FilterType;
import java.io.IOException;

/** The one JSON mapper for state files: snake_case names, strict about unknown fields. */
public final class Json {

  static final ObjectMapper MAPPER =
      new ObjectMapper()
          .registerModule(
              new SimpleModule("idem-core types")
                  // idem-core does without Jackson: its enums are written as their display names
                  // here
                  .addSerializer(
                      FilterType.class,
                      new ToStringSerializerBase(FilterType.class) {
                        @Override
                        public String valueToString(Object value) {
                          return ((FilterType) value).displayName();
                        }
                      })
                  .addDeserializer(
                      FilterType.class,
                      new FromStringDeserializer<>(FilterType.class) {
                        @Override
                        protected FilterType _deserialize(
                            String value, DeserializationContext context) {
                          return FilterType.byName(value);
                        }
                      }))
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  private Json() {}

  public static byte[] write(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode " + value.getClass().getSimpleName(), e);
    }
  }

  public static <T> T read(byte[] json, Class<T> type) throws IOException {
    return MAPPER.readValue(json, type);
  }

  /** Reads {@code length} bytes of {@code json} from {@code from} as {@code type}. */
  public static <T> T read(byte[] json, int from, int length, JavaType type) throws IOException {
    return MAPPER.readValue(json, from, length, type);
  }

  /** {@code value} as a JSON tree, named as in state files. */
  public static JsonNode tree(Object value) {
    return MAPPER.valueToTree(value);
  }

  /** {@code type} as Jackson names it, to build generic types from. */
  public static JavaType type(Class<?> type) {
    return MAPPER.constructType(type);
  }

  /** The type {@code generic<parameter>}. */
  public static JavaType type(Class<?> generic, Class<?> parameter) {
    return MAPPER.getTypeFactory().constructParametricType(generic, parameter);
  }

  /**
   * What is wrong with a JSON file, in words a user can act on: the problem and where, without
   * Jackson's class names and source excerpts.
   */
  public static String problem(JsonProcessingException e) {
    JsonLocation at = e.getLocation();
    String what = e.getOriginalMessage();
    int cut = what.indexOf(" (for ");
    if (cut > 0) {
      what = what.substring(0, cut);
    }
    what = what.lines().findFirst().orElse("unreadable").strip();
    return at == null || at.getLineNr() < 0
        ? what
        : what + " at line " + at.getLineNr() + ", column " + at.getColumnNr();
  }
}
