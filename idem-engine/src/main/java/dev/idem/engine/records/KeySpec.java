package dev.idem.engine.records;

import java.util.ArrayList;
import java.util.List;

/**
 * What identifies a record: a JSON field (by name or JSON Pointer), a CSV/TSV column (by header
 * name or 1-based number), or the whole line. A content key ({@code --content FIELD}) is a JSON
 * field whose text is the document: it is always deduplicated by fingerprint.
 *
 * <p>{@link #describe()} is stable and goes into a job's MANIFEST.
 */
public sealed interface KeySpec {

  /** The key's value as text: a JSON field at a pointer like {@code /meta/url}. */
  record JsonField(List<String> path, boolean content) implements KeySpec {
    public JsonField {
      path = List.copyOf(path);
      if (path.isEmpty()) {
        throw new IllegalArgumentException("a JSON key needs a field name or a pointer like /a/b");
      }
    }

    @Override
    public String describe() {
      return (content ? "content:" : "json:") + toPointer(path);
    }
  }

  /**
   * A CSV or TSV column: by header name, or by 1-based number when {@code name} is null; fields
   * separated by {@code delimiter}, or by the format's own (comma, tab) when it is 0.
   */
  record Column(String name, int number, char delimiter) implements KeySpec {
    public Column(String name, int number) {
      this(name, number, (char) 0);
    }

    /** This column, in fields separated by {@code d} (a single-byte character). */
    public Column withDelimiter(char d) {
      if (d == 0 || d > 0x7f || d == '"' || d == '\n' || d == '\r') {
        throw new IllegalArgumentException(
            "--delimiter takes one ASCII character other than a quote or a line break, "
                + "like ';', '|' or '\\t' for a tab");
      }
      return new Column(name, number, d);
    }

    @Override
    public String describe() {
      // the delimiter only when given, so states written before it existed still match
      return (name != null ? "column:" + name : "column#" + number)
          + (delimiter == 0 ? "" : ",delimiter:" + (int) delimiter);
    }
  }

  /** The whole record (line) is the key. */
  record WholeLine() implements KeySpec {
    @Override
    public String describe() {
      return "whole-line";
    }
  }

  /** A stable one-line description. */
  String describe();

  /**
   * A JSON field from the command line: {@code id} is the top-level field "id"; a value starting
   * with {@code /} is a JSON Pointer (RFC 6901: {@code ~1} is {@code /}, {@code ~0} is {@code ~}).
   */
  static JsonField jsonField(String spec, boolean content) {
    if (!spec.startsWith("/")) {
      return new JsonField(List.of(spec), content);
    }
    List<String> path = new ArrayList<>();
    for (String token : spec.substring(1).split("/", -1)) {
      path.add(token.replace("~1", "/").replace("~0", "~"));
    }
    return new JsonField(path, content);
  }

  /** A column from the command line: a positive number selects by position, else by name. */
  static Column column(String spec) {
    if (spec.matches("[0-9]+")) {
      int n = Integer.parseInt(spec);
      if (n < 1) {
        throw new IllegalArgumentException("column numbers start at 1, got " + spec);
      }
      return new Column(null, n);
    }
    return new Column(spec, 0);
  }

  private static String toPointer(List<String> path) {
    StringBuilder sb = new StringBuilder();
    for (String p : path) {
      sb.append('/').append(p.replace("~", "~0").replace("/", "~1"));
    }
    return sb.toString();
  }
}
