package dev.idem.parquet;

import dev.idem.core.KeyNormalizer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.io.InvalidRecordException;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * The key of a Parquet row: one or more leaf columns, each read alone (a projection), turned into
 * the key's canonical bytes. docs/FORMAT.md "Parquet keys" is the specification; in short:
 *
 * <ul>
 *   <li>Each column's value becomes a tag byte and its bytes: {@code 'i'} and the 8 big-endian
 *       bytes of an INT32 or INT64 (so 7 is the same key in either), {@code 'f'} and the IEEE bits
 *       of a FLOAT or DOUBLE as a double (−0.0 as 0.0, one NaN), {@code 'z'} and 0 or 1 for a
 *       BOOLEAN, {@code 'b'} and the bytes of a BINARY or FIXED_LEN_BYTE_ARRAY (strings, UUIDs,
 *       decimals), {@code 't'} and the 12 bytes of an INT96. The tag keeps {@code 1} in an int64
 *       column and {@code "1"} in a string column apart.
 *   <li>With {@code asText}, a value is its text instead, with no tag: a string's UTF-8, a number
 *       in decimal ({@link Long#toString}, {@link Double#toString}), {@code true}/{@code false}. A
 *       one-column text key is then the key a JSON Lines job would see for the same value.
 *   <li>Several columns make a tuple: each value is preceded by its length (4 bytes, big-endian),
 *       so ({@code "a"}, {@code "bc"}) and ({@code "ab"}, {@code "c"}) differ.
 *   <li>The normaliser applies to strings' text before framing, never to tags or lengths.
 * </ul>
 *
 * <p>A key column must be a leaf with at most one value per row (no repeated field on its path). A
 * row whose key column is null has no key ({@link #read} returns -1).
 */
final class KeyColumns {

  private final List<ColumnDescriptor> columns;
  private final List<String> names;
  private final MessageType projection;
  private final boolean asText;
  private final KeyNormalizer normalizer;
  private byte[] key = new byte[64];

  private KeyColumns(
      List<ColumnDescriptor> columns,
      List<String> names,
      MessageType projection,
      boolean asText,
      KeyNormalizer normalizer) {
    this.columns = columns;
    this.names = names;
    this.projection = projection;
    this.asText = asText;
    this.normalizer = normalizer;
  }

  /**
   * The key columns {@code names} of {@code schema}: each a field name ({@code id}), a dotted path
   * ({@code meta.url}) or a JSON Pointer ({@code /meta/url}).
   *
   * @throws ParquetInputException naming the file and the column when one is missing, is a group or
   *     is repeated
   */
  static KeyColumns resolve(
      String file, MessageType schema, List<String> names, boolean asText, KeyNormalizer n) {
    List<ColumnDescriptor> columns = new ArrayList<>();
    MessageType projection = null;
    for (String name : names) {
      String[] path = path(name);
      Type type = typeAt(schema, path);
      if (type == null) {
        throw new ParquetInputException(
            file
                + ": no key column "
                + name
                + " (its columns: "
                + String.join(", ", leafNames(schema))
                + ")");
      }
      if (!type.isPrimitive()) {
        throw new ParquetInputException(
            file + ": key column " + name + " is a group; name one of its fields");
      }
      ColumnDescriptor c = schema.getColumnDescription(path);
      if (c.getMaxRepetitionLevel() > 0) {
        throw new ParquetInputException(
            file + ": key column " + name + " is repeated (a list): a key needs one value per row");
      }
      columns.add(c);
      MessageType one = new MessageType(schema.getName(), projected(schema, path));
      projection = projection == null ? one : projection.union(one);
    }
    return new KeyColumns(columns, List.copyOf(names), projection, asText, n);
  }

  /** The schema that reads only the key columns. */
  MessageType projection() {
    return projection;
  }

  /** The key columns in their order, as the projection's column descriptors. */
  List<ColumnDescriptor> columns() {
    return columns;
  }

  /** The bytes of the last key {@link #read} made; valid until the next read. */
  byte[] bytes() {
    return key;
  }

  /**
   * Reads the current row's value of each column from {@code readers} (one per column, in order),
   * consumes them and writes the key into {@link #bytes}.
   *
   * @return the key's length, or -1 when a key column is null in this row (the index of the first
   *     null column is then {@code -2 - index})
   */
  int read(ColumnReader[] readers) {
    int length = 0;
    int nullColumn = -1;
    boolean tuple = readers.length > 1;
    for (int i = 0; i < readers.length; i++) {
      ColumnReader r = readers[i];
      ColumnDescriptor c = columns.get(i);
      if (r.getCurrentDefinitionLevel() < c.getMaxDefinitionLevel()) {
        if (nullColumn < 0) {
          nullColumn = i;
        }
        r.consume();
        continue;
      }
      int start = length + (tuple ? 4 : 0);
      length = value(r, c.getPrimitiveType(), start);
      if (tuple) {
        ByteBuffer.wrap(key, start - 4, 4).putInt(length - start);
      }
      r.consume();
    }
    return nullColumn >= 0 ? -2 - nullColumn : length;
  }

  /** The name of key column {@code index}, as the user gave it. */
  String name(int index) {
    return names.get(index);
  }

  /** Writes the current value at {@code at}; returns the end. */
  private int value(ColumnReader r, PrimitiveType type, int at) {
    switch (type.getPrimitiveTypeName()) {
      case INT32, INT64 -> {
        long v =
            type.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT32
                ? r.getInteger()
                : r.getLong();
        return asText ? text(Long.toString(v), at) : tagged('i', v, at);
      }
      case FLOAT, DOUBLE -> {
        double v =
            type.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.FLOAT
                ? r.getFloat()
                : r.getDouble();
        if (v == 0.0) {
          v = 0.0; // -0.0 == 0.0: one key
        }
        return asText ? text(Double.toString(v), at) : tagged('f', Double.doubleToLongBits(v), at);
      }
      case BOOLEAN -> {
        boolean v = r.getBoolean();
        if (asText) {
          return text(Boolean.toString(v), at);
        }
        ensure(at + 2);
        key[at] = 'z';
        key[at + 1] = (byte) (v ? 1 : 0);
        return at + 2;
      }
      case BINARY, FIXED_LEN_BYTE_ARRAY, INT96 -> {
        Binary b = r.getBinary();
        boolean string = isString(type);
        byte[] bytes = b.getBytesUnsafe();
        if (string && !normalizer.isIdentity()) {
          bytes = normalizer.normalize(bytes, 0, bytes.length);
        }
        int tag = type.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT96 ? 't' : 'b';
        int off = at;
        if (!asText) {
          ensure(at + 1);
          key[at] = (byte) tag;
          off++;
        }
        ensure(off + bytes.length);
        System.arraycopy(bytes, 0, key, off, bytes.length);
        return off + bytes.length;
      }
    }
    throw new IllegalStateException("unknown Parquet type " + type);
  }

  private int text(String s, int at) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    ensure(at + b.length);
    System.arraycopy(b, 0, key, at, b.length);
    return at + b.length;
  }

  private int tagged(char tag, long v, int at) {
    ensure(at + 9);
    key[at] = (byte) tag;
    ByteBuffer.wrap(key, at + 1, 8).putLong(v);
    return at + 9;
  }

  private void ensure(int size) {
    if (size + 4 > key.length) {
      key = Arrays.copyOf(key, Math.max(size + 4, 2 * key.length));
    }
  }

  private static boolean isString(PrimitiveType type) {
    LogicalTypeAnnotation a = type.getLogicalTypeAnnotation();
    return a instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
        || a instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation
        || a instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation;
  }

  /** {@code meta.url} and {@code /meta/url} as {@code [meta, url]}. */
  static String[] path(String name) {
    if (name.startsWith("/")) {
      String[] parts = name.substring(1).split("/", -1);
      for (int i = 0; i < parts.length; i++) {
        parts[i] = parts[i].replace("~1", "/").replace("~0", "~");
      }
      return parts;
    }
    return name.split("\\.", -1);
  }

  /** The field at {@code path}, leaf or group, or null. */
  private static Type typeAt(MessageType schema, String[] path) {
    try {
      return schema.getType(path);
    } catch (InvalidRecordException | ClassCastException e) { // no field, or a leaf on the way
      return null;
    }
  }

  private static List<String> leafNames(MessageType schema) {
    List<String> out = new ArrayList<>();
    for (String[] p : schema.getPaths()) {
      out.add(String.join(".", p));
    }
    return out;
  }

  /** The field of {@code schema} at {@code path}, with only that path below it. */
  private static Type projected(MessageType schema, String[] path) {
    Type leaf = schema.getType(path);
    Type t = leaf;
    for (int depth = path.length - 1; depth > 0; depth--) {
      Type parent = schema.getType(Arrays.copyOf(path, depth));
      t = parent.asGroupType().withNewFields(t);
    }
    return t;
  }
}
