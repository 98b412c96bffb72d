package dev.idem.server;

import dev.idem.engine.run.StateDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * A key's description in the state directory, {@code keys/<id>.key}: what it is and its settings
 * (and, for a filter, its snapshot generation and counts), as {@code name=value} lines closed by
 * the CRC32C of the lines before it, replaced atomically (a temporary file, fsync, rename).
 */
final class KeyFile {

  static final String HEADER = "idem-serve key 1";

  private KeyFile() {}

  static Path path(Path keysDir, long id) {
    return keysDir.resolve(id + ".key");
  }

  static void write(Path keysDir, long id, Map<String, String> fields) throws IOException {
    StringBuilder sb = new StringBuilder(HEADER).append('\n');
    fields.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
    byte[] body = sb.toString().getBytes(StandardCharsets.UTF_8);
    CRC32C crc = new CRC32C();
    crc.update(body);
    String text = sb + "crc32c=" + String.format("%08x", crc.getValue()) + "\n";
    StateDirectory.writeAtomically(
        keysDir, path(keysDir, id).getFileName().toString(), text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The fields of a key file.
   *
   * @throws IOException naming the file when it is damaged or not one of these
   */
  static Map<String, String> read(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    int at = text.lastIndexOf("crc32c=");
    if (!text.startsWith(HEADER + "\n") || at < 0) {
      throw new IOException(file + ": not a key file of idem serve (damaged or truncated)");
    }
    CRC32C crc = new CRC32C();
    crc.update(text.substring(0, at).getBytes(StandardCharsets.UTF_8));
    if (!text.substring(at + 7).strip().equals(String.format("%08x", crc.getValue()))) {
      throw new IOException(file + ": checksum mismatch, the key file is damaged");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : text.substring(HEADER.length() + 1, at).split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        fields.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return fields;
  }

  static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  static byte[] unhex(String s) {
    return HexFormat.of().parseHex(s);
  }
}
