package dev.idem.engine.input;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The files that the names on a command line stand for, in order:
 *
 * <ul>
 *   <li>a file is itself, and {@code -} stays, for standard input;
 *   <li>a directory is every regular file below it, at any depth, in path order;
 *   <li>a name with glob characters (<code>* ? [ {</code>) that is not a file is the files it
 *       matches, in path order: the characters may stand in any component ({@code
 *       days/2024-*}{@code /*.jsonl}), {@code *} within one component, {@code **} across any number
 *       of them, none included ({@code lake/**}{@code /*.gz} matches {@code lake/a.gz} too).
 * </ul>
 *
 * Files and directories whose names start with a dot are left out of directories and globs, as the
 * shell leaves them out.
 */
public final class InputPaths {

  private static final Pattern GLOB = Pattern.compile(".*[*?\\[{].*");

  private InputPaths() {}

  /**
   * Expands {@code names}, without reading the files.
   *
   * @throws IOException naming the argument that matches nothing
   */
  public static List<String> expand(List<String> names) throws IOException {
    List<String> files = new ArrayList<>();
    for (String name : names) {
      if (InputFile.isStdin(name)) {
        files.add(name);
        continue;
      }
      Path path = Path.of(name);
      if (Files.isDirectory(path)) {
        List<Path> inside = below(path, null, Integer.MAX_VALUE);
        if (inside.isEmpty()) {
          throw new IOException(name + ": directory has no input files");
        }
        inside.forEach(p -> files.add(p.toString()));
      } else if (!Files.exists(path) && GLOB.matcher(name).matches()) {
        List<Path> matches = glob(path);
        if (matches.isEmpty()) {
          throw new IOException(name + ": no files match");
        }
        matches.forEach(p -> files.add(p.toString()));
      } else {
        if (!Files.exists(path)) {
          throw new IOException(name + ": no such file");
        }
        files.add(path.toString());
      }
    }
    return files;
  }

  /** Whether {@code name} stands for more than itself: a directory or a pattern. */
  public static boolean isPattern(String name) {
    if (InputFile.isStdin(name)) {
      return false;
    }
    Path path = Path.of(name);
    return Files.isDirectory(path) || (!Files.exists(path) && GLOB.matcher(name).matches());
  }

  /** The files matching a pattern: walked from its last directory without glob characters. */
  private static List<Path> glob(Path pattern) throws IOException {
    int first = 0;
    while (first < pattern.getNameCount()
        && !GLOB.matcher(pattern.getName(first).toString()).matches()) {
      first++;
    }
    Path base =
        first == 0
            ? (pattern.isAbsolute() ? pattern.getRoot() : Path.of(""))
            : (pattern.getRoot() == null
                ? pattern.subpath(0, first)
                : pattern.getRoot().resolve(pattern.subpath(0, first)));
    String rest = pattern.subpath(first, pattern.getNameCount()).toString();
    boolean deep = rest.contains("**");
    int depth = deep ? Integer.MAX_VALUE : pattern.getNameCount() - first;
    List<PathMatcher> matchers = new ArrayList<>();
    matchers.add(FileSystems.getDefault().getPathMatcher("glob:" + rest));
    if (rest.contains("**/")) {
      matchers.add(FileSystems.getDefault().getPathMatcher("glob:" + rest.replace("**/", "")));
    }
    return Files.isDirectory(base.toString().isEmpty() ? Path.of(".") : base)
        ? below(base, matchers, depth)
        : List.of();
  }

  /**
   * The regular, visible files below {@code dir} to {@code depth} levels whose path relative to it
   * one of {@code matchers} matches (all, if null), in path order.
   */
  private static List<Path> below(Path dir, List<PathMatcher> matchers, int depth)
      throws IOException {
    Path start = dir.toString().isEmpty() ? Path.of(".") : dir;
    List<Path> out = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(start, depth)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        Path relative = start.relativize(p);
        if (relative.toString().isEmpty() || hidden(relative) || !Files.isRegularFile(p)) {
          continue;
        }
        if (matchers == null || matchers.stream().anyMatch(m -> m.matches(relative))) {
          out.add(dir.toString().isEmpty() ? relative : dir.resolve(relative));
        }
      }
    }
    out.sort(null);
    return out;
  }

  private static boolean hidden(Path relative) {
    for (Path part : relative) {
      if (part.toString().startsWith(".")) {
        return true;
      }
    }
    return false;
  }
}
