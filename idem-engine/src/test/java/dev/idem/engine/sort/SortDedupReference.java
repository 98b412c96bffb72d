package dev.idem.engine.sort;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What sort-dedup must write, computed the obvious way: every record in memory, a LinkedHashMap
 * from key to the surviving record's position.
 */
final class SortDedupReference {

  /** One record as read: its bytes (terminator included, or a '\n' added) and its key. */
  record Line(byte[] bytes, byte[] key) {}

  private SortDedupReference() {}

  /** Splits input into lines the way LineReader does for inputs without '\r'. */
  static List<byte[]> lines(byte[] input) {
    List<byte[]> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < input.length; i++) {
      if (input[i] == '\n') {
        lines.add(Arrays.copyOfRange(input, start, i));
        start = i + 1;
      }
    }
    if (start < input.length) {
      lines.add(Arrays.copyOfRange(input, start, input.length));
    }
    return lines;
  }

  /** The expected output for records whose keys {@code keyOf} gives. */
  static byte[] expected(
      byte[] input,
      Function<byte[], byte[]> keyOf,
      boolean keepLast,
      boolean keyOrder,
      boolean exactKey) {
    List<Line> records = new ArrayList<>();
    for (byte[] content : lines(input)) {
      byte[] bytes = Arrays.copyOf(content, content.length + 1);
      bytes[content.length] = '\n';
      records.add(new Line(bytes, keyOf.apply(content)));
    }
    Map<String, Integer> survivor = new LinkedHashMap<>();
    for (int i = 0; i < records.size(); i++) {
      String k = new String(records.get(i).key(), java.nio.charset.StandardCharsets.ISO_8859_1);
      if (keepLast) {
        survivor.put(k, i);
      } else {
        survivor.putIfAbsent(k, i);
      }
    }
    List<Integer> positions = new ArrayList<>(survivor.values());
    if (keyOrder) {
      Fingerprinter fp = Fingerprinter.xxh3();
      Comparator<Integer> byKey =
          exactKey
              ? (a, b) -> Arrays.compareUnsigned(records.get(a).key(), records.get(b).key())
              : (a, b) -> {
                Fingerprint x = fp.fingerprint(records.get(a).key());
                Fingerprint y = fp.fingerprint(records.get(b).key());
                int c = Long.compareUnsigned(x.hi(), y.hi());
                return c != 0 ? c : Long.compareUnsigned(x.lo(), y.lo());
              };
      positions.sort(byKey);
    } else {
      positions.sort(null);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int p : positions) {
      out.writeBytes(records.get(p).bytes());
    }
    return out.toByteArray();
  }
}
