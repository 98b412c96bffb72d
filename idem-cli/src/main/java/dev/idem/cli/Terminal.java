package dev.idem.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;

/** Whether standard error is a terminal, which decides if progress is drawn. */
final class Terminal {

  private Terminal() {}

  /**
   * Where a progress bar draws: standard error, through the bar library's terminal, opened here
   * (its first width query opens it) so that Ctrl-C can be taken back from it right away.
   */
  static ConsoleProgressBarConsumer progressBarConsumer() {
    ConsoleProgressBarConsumer consumer = new ConsoleProgressBarConsumer(System.err);
    consumer.getMaxRenderedLength();
    Signals.exitOnInterrupt();
    return consumer;
  }

  static boolean stderrIsTerminal() {
    if (System.getenv("CI") != null) {
      return false;
    }
    try {
      // Linux: what file descriptor 2 points at; a terminal is /dev/pts/N or /dev/ttyN
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (Exception e) {
      return System.console() != null;
    }
  }
}
