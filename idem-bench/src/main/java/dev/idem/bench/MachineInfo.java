package dev.idem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the report says about the machine: CPU, load, and whether transparent huge pages were in
 * effect. The forks request THP with {@code -XX:+UseTransparentHugePages}; on a kernel in madvise
 * mode that only works if the JVM's madvise is honoured, so the peak of {@code AnonHugePages} seen
 * during the run is recorded as evidence rather than assumed.
 */
final class MachineInfo {

  private final AtomicLong peakHugePagesKiB = new AtomicLong();
  private Thread sampler;

  /** Samples {@code AnonHugePages} every few seconds until {@link #stop()}. */
  void startSampling() {
    sampler =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                peakHugePagesKiB.accumulateAndGet(anonHugePagesKiB(), Math::max);
                try {
                  Thread.sleep(3000);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "thp-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  void stop() {
    if (sampler != null) {
      sampler.interrupt();
    }
  }

  /** One markdown line on THP: kernel mode, the JVM flag, and the peak huge-page use seen. */
  String thpLine() {
    return "transparent huge pages requested in every fork (`-XX:+UseTransparentHugePages`, "
        + "the same for all contenders); kernel THP mode `"
        + thpMode()
        + "`; peak AnonHugePages "
        + "during the run "
        + peakHugePagesKiB.get() / 1024
        + " MiB";
  }

  static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: fall through
    }
    return System.getProperty("os.arch");
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** The bracketed choice of /sys/kernel/mm/transparent_hugepage/enabled, e.g. "madvise". */
  static String thpMode() {
    try {
      String s = Files.readString(Path.of("/sys/kernel/mm/transparent_hugepage/enabled"));
      int a = s.indexOf('[');
      int b = s.indexOf(']');
      return a >= 0 && b > a ? s.substring(a + 1, b) : s.trim();
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static long anonHugePagesKiB() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("AnonHugePages:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return 0;
  }

  /** "CPU, cores; JVM" for the report header. */
  static String summary() {
    return cpuModel()
        + ", "
        + Runtime.getRuntime().availableProcessors()
        + " cores; "
        + System.getProperty("java.vm.name")
        + ' '
        + System.getProperty("java.runtime.version");
  }
}
