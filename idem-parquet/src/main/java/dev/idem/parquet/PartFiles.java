package dev.idem.parquet;

import dev.idem.engine.JobException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An output directory of Parquet part files, {@code part-00000.parquet}, {@code part-00001…}, in
 * row order. A part is written under a hidden in-progress name and renamed when closed, so a reader
 * of {@code DIR/*.parquet} never sees half a file; a job's checkpoint counts closed parts, and a
 * resumed job deletes every part from that count on ({@link #cutBackTo}).
 */
final class PartFiles {

  private static final Pattern PART = Pattern.compile("part-(\\d{5,})\\.parquet");
  private static final String IN_PROGRESS = ".inprogress";

  private final Path dir;

  PartFiles(Path dir) throws IOException {
    this.dir = dir;
    Files.createDirectories(dir);
  }

  Path dir() {
    return dir;
  }

  /** The name part {@code index} has once closed. */
  Path part(long index) {
    return dir.resolve(String.format(Locale.ROOT, "part-%05d.parquet", index));
  }

  /** Where part {@code index} is written until it is closed; deleted first if there. */
  Path inProgress(long index) throws IOException {
    Path p = dir.resolve("." + part(index).getFileName() + IN_PROGRESS);
    Files.deleteIfExists(p);
    return p;
  }

  /** Makes the written part {@code index} durable under its final name. */
  void publish(long index) throws IOException {
    Path written = dir.resolve("." + part(index).getFileName() + IN_PROGRESS);
    try (FileChannel c = FileChannel.open(written, StandardOpenOption.WRITE)) {
      c.force(true);
    }
    Files.move(written, part(index), StandardCopyOption.ATOMIC_MOVE);
    syncDirectory();
  }

  /**
   * Deletes the parts numbered {@code parts} and above and every in-progress part: what a job
   * killed after its last checkpoint wrote.
   *
   * @return the number of files deleted
   */
  int cutBackTo(long parts) throws IOException {
    int deleted = 0;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        Matcher m = PART.matcher(name);
        boolean beyond = m.matches() && Long.parseLong(m.group(1)) >= parts;
        boolean unfinished = name.startsWith(".part-") && name.endsWith(IN_PROGRESS);
        if (beyond || unfinished) {
          Files.delete(p);
          deleted++;
        }
      }
    }
    if (deleted > 0) {
      syncDirectory();
    }
    return deleted;
  }

  /**
   * Refuses to go on when a part a checkpoint counted is gone: the output was changed since, and a
   * resume would leave a hole in it.
   *
   * @throws JobException naming the first missing part
   */
  void requireParts(long count) throws JobException {
    for (long i = 0; i < count; i++) {
      if (!Files.isRegularFile(part(i))) {
        throw new JobException(
            part(i)
                + " is missing: the job's last checkpoint counted "
                + count
                + " parts in "
                + dir
                + ". Restore the output, or start over with a new --state and output directory");
      }
    }
  }

  /** Whether the directory holds part files already (a new job refuses to mix with them). */
  boolean hasParts() throws IOException {
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        if (PART.matcher(p.getFileName().toString()).matches()) {
          return true;
        }
      }
    }
    return false;
  }

  private void syncDirectory() throws IOException {
    try (FileChannel c = FileChannel.open(dir, StandardOpenOption.READ)) {
      c.force(true);
    } catch (IOException e) {
      // some file systems cannot sync a directory; the rename is then as durable as they allow
    }
  }
}
