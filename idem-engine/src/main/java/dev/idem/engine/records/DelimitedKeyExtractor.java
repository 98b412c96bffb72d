package dev.idem.engine.records;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The key of a CSV or TSV record: one column, by header name or number. CSV follows RFC 4180: a
 * field in double quotes may hold commas, line breaks and doubled quotes ({@code ""} is one {@code
 * "}); the key is the field's value with the quoting removed. TSV fields are split on tabs with no
 * quoting. A record without the column is bad.
 */
final class DelimitedKeyExtractor implements KeyExtractor {

  private final KeySpec.Column column;
  private final boolean csv;
  private final byte separator;
  private int index; // 0-based column to extract; -1 until a header names it
  private byte[] scratch = new byte[256];

  DelimitedKeyExtractor(KeySpec.Column column, boolean csv) {
    this.column = column;
    this.csv = csv;
    this.separator = (byte) (column.delimiter() != 0 ? column.delimiter() : csv ? ',' : '\t');
    this.index = column.name() == null ? column.number() - 1 : -1;
  }

  @Override
  public String header(byte[] line, int offset, int length) {
    if (column.name() == null) {
      return null;
    }
    List<String> names = new ArrayList<>();
    KeyBuffer field = new KeyBuffer();
    for (int i = 0; ; i++) {
      String problem = field(line, offset, length, i, field);
      if (problem != null) {
        break;
      }
      names.add(new String(field.bytes(), 0, field.length(), StandardCharsets.UTF_8));
    }
    index = names.indexOf(column.name());
    return index >= 0
        ? null
        : "no column '"
            + column.name()
            + "' in the header (columns: "
            + String.join(", ", names)
            + ")";
  }

  @Override
  public KeyExtractor copy() {
    DelimitedKeyExtractor c = new DelimitedKeyExtractor(column, csv);
    c.index = index; // as the header set it
    return c;
  }

  @Override
  public String extract(byte[] record, int offset, int length, KeyBuffer out) {
    return field(record, offset, length, index, out);
  }

  /** Puts field {@code wanted} (0-based) into {@code out}; null, or why it is not there. */
  private String field(byte[] r, int offset, int length, int wanted, KeyBuffer out) {
    int end = offset + length;
    int i = offset;
    for (int f = 0; ; f++) {
      boolean quoted = csv && i < end && r[i] == '"';
      int valueLength = 0;
      if (quoted) {
        i++;
        while (true) {
          if (i >= end) {
            return "malformed CSV: a quoted field is not closed";
          }
          if (r[i] == '"') {
            if (i + 1 < end && r[i + 1] == '"') {
              valueLength = put(f == wanted, valueLength, (byte) '"');
              i += 2;
              continue;
            }
            i++;
            break;
          }
          valueLength = put(f == wanted, valueLength, r[i]);
          i++;
        }
        if (i < end && r[i] != separator) {
          return "malformed CSV: text after the closing quote of field " + (f + 1);
        }
      } else {
        int start = i;
        while (i < end && r[i] != separator) {
          i++;
        }
        if (f == wanted) {
          out.set(r, start, i - start);
        }
      }
      if (f == wanted) {
        if (quoted) {
          out.set(scratch, 0, valueLength);
        }
        return null;
      }
      if (i >= end) {
        return "only "
            + (f + 1)
            + " field"
            + (f == 0 ? "" : "s")
            + ", no column "
            + (column.name() != null ? "'" + column.name() + "'" : "#" + column.number());
      }
      i++; // the separator
    }
  }

  private int put(boolean keep, int at, byte b) {
    if (!keep) {
      return at;
    }
    if (at == scratch.length) {
      scratch = java.util.Arrays.copyOf(scratch, 2 * scratch.length);
    }
    scratch[at] = b;
    return at + 1;
  }
}
