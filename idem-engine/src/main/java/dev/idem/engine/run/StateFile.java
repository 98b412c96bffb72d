package dev.idem.engine.run;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import dev.idem.engine.JobException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The one encoding of the JSON files a job keeps for itself (its identity and checkpoint, a plan's
 * progress): a header line, then the JSON body.
 *
 * <pre>
 * idem-state sort-dedup 2 crc32c=1a2b3c4d bytes=1234
 * { ...the body, 1234 bytes... }
 * </pre>
 *
 * <p>The header names the kind of file, so that one job's file is never read as another's, and the
 * version of its body's layout, so that a newer layout is refused by an older idem rather than
 * misread. The CRC32C covers exactly the body's bytes: a torn, truncated or edited file is refused,
 * naming the file, never trusted. Files are replaced atomically ({@link
 * StateDirectory#writeAtomically}).
 *
 * <p>Files written before this encoding (a bare JSON body, version 1) are read as they are, since
 * they carry no checksum to check; the next checkpoint writes them in this encoding.
 */
public final class StateFile {

  private static final String MAGIC = "idem-state";
  private static final Pattern HEADER =
      Pattern.compile(MAGIC + " (\\S+) (\\d+) crc32c=([0-9a-f]{8}) bytes=(\\d+)");

  /** The version of a body written before this encoding. */
  public static final int LEGACY_VERSION = 1;

  private StateFile() {}

  /**
   * A state file as read and checked, its body not yet decoded.
   *
   * @param version the body's layout version; {@link #LEGACY_VERSION} for a bare JSON file
   * @param body the JSON body's bytes
   */
  public record Contents(Path file, int version, byte[] body) {

    /** The body as {@code type}; a body that does not decode is refused, naming the file. */
    public <T> T as(Class<T> type) throws IOException {
      return as(Json.type(type));
    }

    /** The body as {@code type}. */
    public <T> T as(JavaType type) throws IOException {
      try {
        return Json.read(body, 0, body.length, type);
      } catch (JsonProcessingException e) {
        throw damaged(file, Json.problem(e));
      }
    }
  }

  /** Writes {@code body} to {@code file} atomically, as {@code kind} at {@code version}. */
  public static void write(Path file, String kind, int version, Object body) throws IOException {
    StateDirectory.writeAtomically(
        file.toAbsolutePath().getParent(),
        file.getFileName().toString(),
        encode(kind, version, body));
  }

  /**
   * {@code body} in this encoding, as bytes: for a state kept elsewhere than in a file of its own
   * (a job's commit token in a durable set's store).
   */
  public static byte[] encode(String kind, int version, Object body) {
    byte[] json = Json.write(body);
    CRC32C crc = new CRC32C();
    crc.update(json);
    byte[] header =
        String.format(
                Locale.ROOT,
                "%s %s %d crc32c=%08x bytes=%d\n",
                MAGIC,
                kind,
                version,
                crc.getValue(),
                json.length)
            .getBytes(StandardCharsets.US_ASCII);
    byte[] content = Arrays.copyOf(header, header.length + json.length);
    System.arraycopy(json, 0, content, header.length, json.length);
    return content;
  }

  /**
   * Reads {@code file}, written by {@link #write} as {@code kind} at a version up to {@code
   * version}, or before this encoding.
   *
   * @return the contents, checked, or {@code null} when the file does not exist
   * @throws IOException naming the file, when it is damaged
   * @throws JobException naming the file, when it is of another kind or of a newer idem
   */
  public static Contents read(Path file, String kind, int version) throws IOException {
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return null;
    }
    return decode(file, content, kind, version);
  }

  /**
   * Reads {@code content}, made by {@link #encode} as {@code kind} at a version up to {@code
   * version}, or a bare JSON body from before this encoding; {@code file} names it in errors.
   */
  public static Contents decode(Path file, byte[] content, String kind, int version)
      throws IOException {
    if (content.length > 0 && content[0] == '{') {
      return new Contents(file, LEGACY_VERSION, content);
    }
    int newline = indexOf(content, (byte) '\n');
    String header =
        newline < 0
            ? ""
            : new String(content, 0, newline, StandardCharsets.US_ASCII); // ASCII by contract
    Matcher m = HEADER.matcher(header);
    if (!m.matches()) {
      throw damaged(file, "it does not start with an idem state header");
    }
    if (!m.group(1).equals(kind)) {
      throw new JobException(
          file
              + ": the state of "
              + article(m.group(1))
              + " job, not of "
              + article(kind)
              + " job");
    }
    int written = Integer.parseInt(m.group(2));
    if (written > version) {
      throw new JobException(
          file
              + ": written by a newer idem (layout version "
              + written
              + ", this idem reads up to "
              + version
              + "); resume it with that version");
    }
    long length = Long.parseLong(m.group(4));
    int start = newline + 1;
    if (content.length - start != length) {
      throw damaged(
          file,
          String.format(
              Locale.ROOT,
              "it holds %,d bytes after its header, which says %,d",
              content.length - start,
              length));
    }
    CRC32C crc = new CRC32C();
    crc.update(content, start, content.length - start);
    if (crc.getValue() != Long.parseLong(m.group(3), 16)) {
      throw damaged(file, "its checksum does not match its content");
    }
    return new Contents(file, written, Arrays.copyOfRange(content, start, content.length));
  }

  /** The refusal of a damaged state file. */
  public static IOException damaged(Path file, String problem) {
    return new IOException(
        file
            + ": damaged ("
            + problem
            + "); idem will not guess what it held. Restore it from a backup, or start over with a "
            + "new state");
  }

  private static String article(String kind) {
    return ("aeiou".indexOf(kind.charAt(0)) >= 0 ? "an " : "a ") + kind;
  }

  private static int indexOf(byte[] b, byte value) {
    for (int i = 0; i < b.length && i < 256; i++) {
      if (b[i] == value) {
        return i;
      }
    }
    return -1;
  }
}
