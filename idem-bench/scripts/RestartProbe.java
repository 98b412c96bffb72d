import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The CLI restart benchmark's two helpers, run as a single source file ({@code java
 * RestartProbe.java ...}), so that they need no build:
 *
 * <ul>
 *   <li>{@code keys N REPEAT_PERCENT}: writes to standard output lines of 16 hex digits, the c-th
 *       distinct key an invertible mix of c (so N distinct keys), with REPEAT_PERCENT of the lines
 *       repeating a key drawn uniformly from those written before. About 30 M lines a second.
 *   <li>{@code kill FILE BYTES -- COMMAND...}: runs COMMAND and kills it (SIGKILL) as soon as FILE
 *       holds at least BYTES.
 *   <li>{@code first FILE BYTES -- COMMAND...}: runs COMMAND and prints the milliseconds from its
 *       spawn to the moment FILE, once cut back to at most BYTES, first holds more (the first new
 *       output byte after the resume cut the file back to its checkpoint), with the resident
 *       memory then and the peak resident memory (VmHWM) as last read before the command ended.
 * </ul>
 */
public final class RestartProbe {

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "keys" -> keys(Long.parseLong(args[1]), Integer.parseInt(args[2]));
      case "kill" -> watch(args, true);
      case "first" -> watch(args, false);
      default -> throw new IllegalArgumentException("unknown command " + args[0]);
    }
  }

  private static long mix(long c) {
    long z = c * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 31)) * 0xBF58476D1CE4E5B9L;
    return z ^ (z >>> 29);
  }

  private static void keys(long distinct, int repeatPercent) throws IOException {
    byte[] hex = "0123456789abcdef".getBytes();
    byte[] buf = new byte[1 << 20];
    int at = 0;
    SplittableRandom random = new SplittableRandom(42);
    OutputStream out = new BufferedOutputStream(System.out, 1 << 16);
    long next = 0;
    while (next < distinct) {
      long c = next > 0 && random.nextInt(100) < repeatPercent ? random.nextLong(next) : next++;
      long k = mix(c);
      if (at + 17 > buf.length) {
        out.write(buf, 0, at);
        at = 0;
      }
      for (int i = 15; i >= 0; i--) {
        buf[at + i] = hex[(int) (k & 15)];
        k >>>= 4;
      }
      buf[at + 16] = '\n';
      at += 17;
    }
    out.write(buf, 0, at);
    out.flush();
  }

  /** A field of /proc/PID/status in KiB (0 once the process is gone). */
  private static long status(long pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // the process ended between the check and the read
    }
    return 0;
  }

  private static void watch(String[] args, boolean kill) throws Exception {
    Path file = Path.of(args[1]);
    long bytes = Long.parseLong(args[2]);
    List<String> command = new ArrayList<>(List.of(args).subList(4, args.length));
    long started = System.nanoTime();
    Process p = new ProcessBuilder(command).inheritIO().start();
    // a resume first cuts the output back to BYTES: only growth past it after that is new output
    boolean cut = kill;
    while (p.isAlive()) {
      long size = Files.exists(file) ? Files.size(file) : 0;
      cut |= size <= bytes;
      if (cut && (kill ? size >= bytes : size > bytes)) {
        if (kill) {
          p.destroyForcibly(); // the launcher execs java: this is the JVM, SIGKILL
          p.waitFor();
          System.out.println("killed at " + size + " bytes");
          return;
        }
        long first = (System.nanoTime() - started) / 1_000_000;
        long rssAtFirst = status(p.pid(), "VmRSS:");
        long peak = rssAtFirst;
        while (p.isAlive()) { // the peak as last read before the process ended
          peak = Math.max(peak, status(p.pid(), "VmHWM:"));
          Thread.sleep(20);
        }
        System.out.println(
            "first_new_byte_millis "
                + first
                + " rss_at_first_new_byte_mib "
                + rssAtFirst / 1024
                + " peak_rss_mib "
                + peak / 1024);
        System.exit(p.waitFor());
      }
      Thread.sleep(1);
    }
    System.out.println("ended with status " + p.exitValue() + " before the mark");
    System.exit(kill ? 1 : p.exitValue());
  }
}
