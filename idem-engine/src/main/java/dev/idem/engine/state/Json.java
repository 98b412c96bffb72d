package dev.idem.engine.state;

import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
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
}
