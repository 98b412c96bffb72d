package dev.idem.engine.output;

import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Refuses a command whose outputs would destroy data: an output that is one of its inputs, lies in
 * its state directory, or is another of its outputs. Run before anything is opened for writing,
 * since opening an output empties it.
 *
 * <p>Files are compared by identity, not by name: an existing file by its device and inode, so
 * {@code ./in.jsonl}, {@code dir/../in.jsonl}, a symbolic link and a hard link all count as the
 * file they reach; a file still to be created by its real directory and name (after following a
 * dangling link). Only regular files can be destroyed, so devices and pipes ({@code /dev/null},
 * {@code /dev/stdout} on a terminal) are never a conflict.
 *
 * <p>Each path carries a label, how the user named it ({@code "-o out.jsonl"}), so that a refusal
 * names both sides in the user's terms.
 */
public final class OutputGuard {

  /** A named path and what it resolves to; {@code identity} is null when it cannot clash. */
  private record Named(String label, Object identity) {}

  private static final Path STDIN = Path.of("/dev/stdin");
  private static final Path STDOUT = Path.of("/dev/stdout");

  private final List<Named> inputs = new ArrayList<>();
  private final List<Named> outputs = new ArrayList<>();
  private final List<Named> stateDirs = new ArrayList<>();

  /** The outputs that cannot be cut back ({@link OutputFile#canCutBack}), by label. */
  private final List<String> streams = new ArrayList<>();

  private boolean resumable;

  /**
   * Says that the command resumes from checkpoints ({@code --state}): then an output that cannot be
   * cut back to one (a pipe, a FIFO, a terminal) is refused too.
   */
  public OutputGuard resumable(boolean resumable) {
    this.resumable = resumable;
    return this;
  }

  /**
   * Adds the files a command reads, named as the user named them: files, directories and globs
   * (expanded as the job will), and {@code -} for standard input.
   */
  public OutputGuard inputs(List<String> names) throws IOException {
    for (String given : names) {
      List<String> files;
      try {
        files = InputFile.files(List.of(given));
      } catch (IOException e) {
        continue; // matches no file, so it cannot be an output: the job says so, before writing
      }
      for (String name : files) {
        if (InputFile.isStdin(name)) {
          addStandard(inputs, "standard input", STDIN);
        } else {
          inputs.add(new Named("input " + name, identity(Path.of(name))));
        }
      }
    }
    return this;
  }

  /** Adds a file the command reads, as the user named it; {@code null} is ignored. */
  public OutputGuard input(String label, Path file) throws IOException {
    if (file != null) {
      inputs.add(new Named(label, identity(file)));
    }
    return this;
  }

  /**
   * Adds a directory the command owns (a state directory): no output may lie in it, and no input
   * either, since the command replaces and deletes files there; {@code null} is ignored.
   */
  public OutputGuard stateDirectory(String label, Path dir) throws IOException {
    // a file given as a state directory is refused by the job, with a message that says so
    if (dir != null && (Files.isDirectory(dir) || !Files.exists(dir))) {
      stateDirs.add(new Named(label, wouldBe(dir.toAbsolutePath())));
    }
    return this;
  }

  /**
   * Adds a file the command writes as it goes, and a resumable command cuts back, as the user named
   * it; {@code null} is ignored.
   */
  public OutputGuard output(String label, Path file) throws IOException {
    if (file != null && !OutputFile.canCutBack(file)) {
      streams.add(label);
    }
    return summary(label, file);
  }

  /**
   * Adds a file the command writes whole at its end (a summary), as the user named it: it must not
   * clash with the inputs and outputs, but it is never cut back, so a pipe will do even for a
   * resumable command; {@code null} is ignored.
   */
  public OutputGuard summary(String label, Path file) throws IOException {
    if (file != null) {
      outputs.add(new Named(label, identity(file)));
    }
    return this;
  }

  /** Adds standard output, which a shell may have pointed at a file ({@code > in.jsonl}). */
  public OutputGuard standardOutput() throws IOException {
    addStandard(outputs, "standard output", STDOUT);
    return this;
  }

  private static void addStandard(List<Named> to, String label, Path stream) throws IOException {
    if (Files.exists(stream)) {
      to.add(new Named(label, identity(stream)));
    }
  }

  /**
   * Checks every output against every input, state directory and other output, and, for a resumable
   * command, that each can be cut back.
   *
   * @throws JobException naming both sides of the first conflict
   */
  public void check() throws JobException {
    if (resumable && !streams.isEmpty()) {
      throw new JobException(
          streams.get(0)
              + " is not a regular file (a pipe, FIFO or terminal): a job with --state cuts its "
              + "outputs back to the last checkpoint when it resumes, which it cannot do there; "
              + "write to a file, or drop --state");
    }
    for (int i = 0; i < outputs.size(); i++) {
      Named out = outputs.get(i);
      if (out.identity == null) {
        continue;
      }
      for (Named in : inputs) {
        if (out.identity.equals(in.identity)) {
          throw new JobException(
              out.label
                  + " is the same file as "
                  + in.label
                  + ": writing it would destroy the input; write to another file");
        }
      }
      for (Named other : outputs.subList(0, i)) {
        if (out.identity.equals(other.identity)) {
          throw new JobException(
              out.label
                  + " and "
                  + other.label
                  + " are the same file: "
                  + "two outputs would overwrite each other; give each its own file");
        }
      }
      for (Named dir : stateDirs) {
        if (within(out.identity, dir.identity)) {
          throw new JobException(
              out.label
                  + " is inside "
                  + dir.label
                  + ", whose files idem "
                  + "owns: writing there would damage the job's state; write elsewhere");
        }
      }
    }
    for (Named in : inputs) {
      for (Named dir : stateDirs) {
        if (in.identity != null && within(in.identity, dir.identity)) {
          throw new JobException(
              in.label
                  + " is inside "
                  + dir.label
                  + ", whose files idem "
                  + "replaces and deletes: read a copy of it from elsewhere");
        }
      }
    }
  }

  /** Whether {@code file} is {@code dir} or lies below it (both as {@link #identity}). */
  private static boolean within(Object file, Object dir) {
    Path f = file instanceof FileKey k ? k.realPath : (Path) file;
    return dir instanceof Path d && f.startsWith(d);
  }

  /**
   * What {@code path} denotes: for an existing regular file its file key (device and inode) and its
   * real path, for a file to be created the path it would have, for anything else null.
   */
  private static Object identity(Path path) throws IOException {
    Path absolute = path.toAbsolutePath();
    if (!Files.exists(absolute)) {
      return wouldBe(absolute);
    }
    BasicFileAttributes attrs = Files.readAttributes(absolute, BasicFileAttributes.class);
    if (!attrs.isRegularFile()) {
      return attrs.isDirectory() ? absolute.toRealPath() : null;
    }
    Object key = attrs.fileKey();
    return key != null ? new FileKey(key, absolute.toRealPath()) : absolute.toRealPath();
  }

  /**
   * A regular file: equal to another by device and inode (hard links), and placed by its real path
   * (for "is it inside the state directory").
   */
  private record FileKey(Object key, Path realPath) {
    @Override
    public boolean equals(Object o) {
      return o instanceof FileKey k && key.equals(k.key);
    }

    @Override
    public int hashCode() {
      return key.hashCode();
    }
  }

  /**
   * The real path a file that does not exist yet would have: dangling links followed, the nearest
   * existing ancestor resolved to its real path, and the rest appended.
   */
  private static Path wouldBe(Path absolute) throws IOException {
    Path p = absolute.normalize();
    for (int hops = 0; hops < 40 && Files.isSymbolicLink(p); hops++) {
      p = p.resolveSibling(Files.readSymbolicLink(p)).toAbsolutePath().normalize();
    }
    if (Files.exists(p)) {
      return p.toRealPath();
    }
    Path existing = p;
    Path rest = null;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      Path name = existing.getFileName();
      rest = rest == null ? name : name.resolve(rest);
      existing = existing.getParent();
    }
    if (existing == null) {
      return p;
    }
    Path real = existing.toRealPath();
    return rest == null ? real : real.resolve(rest);
  }
}
