package dev.idem.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;

/**
 * Whether standard error is a terminal, which decides if progress is drawn, and whether standard
 * input is one, which a command that waits for it says.
 */
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

  /**
   * Tells the user, when a command is about to read standard input and that is the terminal, that
   * it waits for them: {@code idem dedup --whole-line} typed with no input file otherwise sits
   * silently (behind a progress bar at 0). Nothing is said when standard input is a file or a pipe.
   *
   * @param command the command's name ({@code idem dedup})
   * @param what what it reads ({@code records})
   */
  static void sayWhenReadingTheTerminal(Io io, String command, List<String> inputs, String what) {
    boolean readsStdin = inputs.isEmpty() || inputs.contains("-");
    if (readsStdin && io.in() == System.in && stdinIsTerminal()) {
      io.err()
          .println(
              command
                  + ": reading "
                  + what
                  + " from standard input (the terminal): type them, then Ctrl-D; or name "
                  + "input files (see '"
                  + command
                  + " --help')");
    }
  }

  /** Whether standard input is a terminal (Linux: where file descriptor 0 points). */
  static boolean stdinIsTerminal() {
    try {
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/0")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (Exception e) {
      return System.console() != null;
    }
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
