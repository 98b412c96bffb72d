package dev.idem.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.openjdk.jol.info.GraphLayout;

/**
 * Retained heap of one structure holding n keys, measured in a JVM of its own ({@link StructureRun}
 * starts it with a fixed heap): used heap after full collections, before and after building the
 * structure from keys generated block by block (so nothing but the structure and what it references
 * stays), cross-checked by JOL's {@link GraphLayout} walk of the structure. A HashSet's Strings
 * count, because the set keeps them alive; FingerprintSet and the long set keep no key bytes at
 * all, which is the point of them.
 *
 * <p>Prints one line: {@code PROBE <structure> <n> <heap-diff bytes> <JOL bytes> <JOL objects>}.
 */
public final class MemoryProbe {

  private MemoryProbe() {}

  public static void main(String[] args) throws InterruptedException {
    String name = args[0];
    int n = Integer.parseInt(args[1]);
    Structure.Input input = Structure.create(name, 1000, StructureBenchmark.FPP).input();
    long before = usedAfterGc();
    Structure target = Structure.create(name, n, StructureBenchmark.FPP);
    for (int done = 0; done < n; done += KeyArena.STREAM_BLOCK) {
      int block = Math.min(KeyArena.STREAM_BLOCK, n - done);
      StructureKeys keys = StructureKeys.of(input, done, block);
      for (int j = 0; j < block; j++) {
        target.insert(keys, j);
      }
    }
    long after = usedAfterGc();
    GraphLayout layout = GraphLayout.parseInstance(target);
    System.out.printf(
        Locale.ROOT,
        "PROBE\t%s\t%d\t%d\t%d\t%d%n",
        name,
        n,
        after - before,
        layout.totalSize(),
        layout.totalCount());
    Reference.reachabilityFence(target);
  }

  /**
   * Runs the probe for {@code set} with {@code n} keys in a JVM of its own started with {@code
   * flags}, writes its output to {@code log}, and returns the PROBE line's fields (name, n, heap
   * bytes, JOL bytes, JOL objects), or null when it printed none.
   */
  static String[] inOwnJvm(String set, long n, List<String> flags, Path log)
      throws IOException, InterruptedException {
    List<String> cmd = ForkRunner.javaCommand(flags, MemoryProbe.class, set, Long.toString(n));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    List<String> lines = new ArrayList<>();
    String[] probe = null;
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        lines.add(line);
        if (line.startsWith("PROBE\t")) {
          probe = Arrays.copyOfRange(line.split("\t"), 1, 6);
        }
      }
    }
    int exit = p.waitFor();
    lines.add("exit " + exit);
    Files.write(log, lines, StandardCharsets.UTF_8);
    return probe;
  }

  /** Used heap once repeated full collections stop freeing anything. */
  static long usedAfterGc() throws InterruptedException {
    Runtime rt = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 10; i++) {
      System.gc();
      Thread.sleep(100);
      long now = rt.totalMemory() - rt.freeMemory();
      if (now >= used) {
        return now;
      }
      used = now;
    }
    return used;
  }
}
