package dev.idem.engine.input;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.idem.engine.JobException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * One input of a job, with what identifies its content: size, the CRC32C of its first 64 KiB,
 * modification time and file key (device and inode). A resumed job refuses an input whose size or
 * first 64 KiB changed, since its saved positions would point into different data; a new
 * modification time or file key alone is a cue to check what the job read of it in full (see {@link
 * dev.idem.engine.records.InputCheck}), since copying or {@code touch} changes them and not the
 * content.
 *
 * @param path the file, or {@code "-"} for standard input
 * @param size bytes on disk ({@code -1} for standard input)
 * @param headCrc CRC32C of the first 64 KiB ({@code 0} for standard input)
 * @param modified the modification time, as {@link java.nio.file.attribute.FileTime#toString()}
 *     gives it, to the file system's precision; {@code null} for standard input and in states
 *     written before it was recorded
 * @param fileKey {@link BasicFileAttributes#fileKey()} as text, e.g. {@code (dev=803,ino=1234)};
 *     {@code null} where the file system has none, for standard input and in older states
 * @param resolved the file's real path (absolute, links followed) when it was identified, so that a
 *     resume that names it another way ({@code /data/urls.txt} for {@code urls.txt}, or from
 *     another working directory) knows it; {@code null} for standard input and in older states
 */
public record InputFile(
    String path, long size, long headCrc, String modified, String fileKey, String resolved) {

  private static final int HEAD_BYTES = 64 * 1024;

  /** True for standard input. */
  @JsonIgnore
  public boolean isStdin() {
    return isStdin(path);
  }

  /**
   * True for an input that can be read only once, from its start: standard input, a pipe, a FIFO, a
   * device ({@code /dev/stdin}, {@code <(command)}). Such an input is never opened before the job
   * reads it (opening a FIFO to look at it would take its data, or end its writer), and it cannot
   * be read again: not by a resume, nor by a job that reads its inputs twice.
   */
  @JsonIgnore
  public boolean isStream() {
    return isStdin() || size < 0;
  }

  /**
   * Refuses a stream among {@code inputs} ({@link #isStream}) for a job that must read them again;
   * {@code why} says why, e.g. {@code "a job with --state reads its inputs again when it resumes"}.
   *
   * @throws JobException naming the first stream
   */
  public static void requireFiles(List<InputFile> inputs, String why) throws JobException {
    for (InputFile f : inputs) {
      if (f.isStream()) {
        throw new JobException(
            (f.isStdin()
                    ? "standard input"
                    : f.path() + " is not a regular file (a pipe, FIFO or device): it")
                + " can be read only once, and "
                + why
                + "; give a file");
      }
    }
  }

  /**
   * How the file is compressed ({@link Compression#ofInput}); a stream is not looked into before it
   * is read (reading decompresses it all the same, by its first bytes).
   */
  @JsonIgnore
  public Compression compression() throws IOException {
    return isStream() ? Compression.NONE : Compression.ofInput(Path.of(path));
  }

  /**
   * The stored bytes of {@code inputs} before input {@code index}: where a job's progress starts.
   */
  public static long bytesBefore(List<InputFile> inputs, int index) {
    return inputs.subList(0, index).stream().mapToLong(f -> Math.max(0, f.size())).sum();
  }

  /** True for the name that stands for standard input. */
  public static boolean isStdin(String name) {
    return Inputs.STDIN.equals(name);
  }

  /**
   * Expands what the user named into files, in order, and identifies each (see {@link #files}).
   *
   * @throws IOException naming the argument that matches nothing or cannot be read
   */
  public static List<InputFile> expand(List<String> names) throws IOException {
    List<InputFile> files = new ArrayList<>();
    for (String name : files(names)) {
      files.add(
          isStdin(name) ? new InputFile(name, -1, 0, null, null, null) : identify(Path.of(name)));
    }
    return files;
  }

  /**
   * The files that {@code names} stand for, in order, without reading them ({@link InputPaths}).
   *
   * @throws IOException naming the argument that matches nothing
   */
  public static List<String> files(List<String> names) throws IOException {
    return InputPaths.expand(names);
  }

  /** The identity of a file as it is now; a stream ({@link #isStream}) is not opened. */
  public static InputFile identify(Path path) throws IOException {
    if (!Files.exists(path)) {
      throw new IOException(path + ": no such file");
    }
    if (!Files.isReadable(path)) {
      throw new IOException(path + ": permission denied");
    }
    if (!Files.isRegularFile(path) && !Files.isDirectory(path)) {
      return new InputFile(path.toString(), -1, 0, null, null, null);
    }
    BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
    CRC32C crc = new CRC32C();
    try (InputStream in = Files.newInputStream(path)) {
      byte[] head = in.readNBytes(HEAD_BYTES);
      crc.update(head);
    }
    Object key = attributes.fileKey();
    return new InputFile(
        path.toString(),
        attributes.size(),
        crc.getValue(),
        attributes.lastModifiedTime().toString(),
        key == null ? null : key.toString(),
        path.toRealPath().toString());
  }

  /**
   * Whether {@code now} names the file this identity was taken of: by the same name, by the same
   * real path, or by the same device and inode (a file renamed in place). Whether its content is
   * still the same is {@link #differenceFrom}'s and {@link dev.idem.engine.records.InputCheck}'s
   * question.
   */
  public boolean isSameFileAs(InputFile now) {
    if (path.equals(now.path)) {
      return true;
    }
    if (isStdin() || now.isStdin()) {
      return false;
    }
    return (resolved != null && resolved.equals(now.resolved))
        || (fileKey != null && fileKey.equals(now.fileKey));
  }

  /** What changed between this identity and {@code now}, or {@code null} if nothing did. */
  public String differenceFrom(InputFile now) {
    if (size != now.size) {
      return path
          + " changed since the state was created (size "
          + size
          + " -> "
          + now.size
          + " bytes)";
    }
    if (headCrc != now.headCrc) {
      return path + " changed since the state was created (its first 64 KiB differ)";
    }
    return null;
  }
}
