package dev.idem.bench;

import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** The child processes of {@link ProcessHarnessTest}: each does one known thing. */
public final class TestChild {

  private TestChild() {}

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "alloc" -> { // touch MiB of heap, hold it, and say so
        byte[] held = new byte[Integer.parseInt(args[1]) << 20];
        Arrays.fill(held, (byte) 1);
        System.out.println("ready " + held.length);
        Thread.sleep(300);
        System.out.println("checksum " + (held.length == 0 ? 0 : held[held.length / 2]));
      }
      case "lines" -> { // LINES lines of 8 bytes to FILE, each flushed, MS apart
        try (OutputStream out = Files.newOutputStream(Path.of(args[3]))) {
          for (int i = 0; i < Integer.parseInt(args[1]); i++) {
            out.write(
                String.format("%07d\n", i).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(Integer.parseInt(args[2]));
          }
        }
      }
      case "late" -> { // nothing for MS, then one line to FILE
        Thread.sleep(Integer.parseInt(args[1]));
        Files.writeString(Path.of(args[2]), "late\n");
      }
      case "say" -> { // a line, then silence until killed
        System.out.println(args[1] + " now");
        Thread.sleep(60_000);
      }
      case "spin" -> { // burn MS of CPU time
        var bean = ManagementFactory.getThreadMXBean();
        long x = 0;
        while (bean.getCurrentThreadCpuTime() < Long.parseLong(args[1]) * 1_000_000) {
          x += System.nanoTime() % 7;
        }
        System.out.println("spun " + x);
      }
      default -> throw new IllegalArgumentException(args[0]);
    }
  }
}
