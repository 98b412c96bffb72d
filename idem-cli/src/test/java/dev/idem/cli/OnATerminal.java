package dev.idem.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code idem} run in a child JVM on a pseudo-terminal ({@code script(1)}), where it draws its
 * progress bars, with everything the terminal shows collected.
 */
final class OnATerminal {

  final Process script;
  private final ByteArrayOutputStream shown = new ByteArrayOutputStream();
  private final Thread copier;

  private OnATerminal(Process script) {
    this.script = script;
    this.copier =
        new Thread(
            () -> {
              try {
                script.getInputStream().transferTo(shown);
              } catch (IOException e) {
                // the terminal closed
              }
            });
    copier.start();
  }

  static boolean available() {
    return Files.isExecutable(Path.of("/usr/bin/script"));
  }

  static OnATerminal start(String heap, String... args) throws IOException {
    return start(0, heap, args);
  }

  /** {@link #start(String, String...)} on a terminal {@code columns} wide (0: as it comes). */
  static OnATerminal start(int columns, String heap, String... args) throws IOException {
    List<String> java = ChildProcessTest.builder(heap, args).command();
    String line =
        (columns > 0 ? "stty cols " + columns + " rows 24; exec " : "")
            + java.stream().map(a -> "'" + a + "'").collect(Collectors.joining(" "));
    ProcessBuilder terminal =
        new ProcessBuilder("/usr/bin/script", "-qefc", line, "/dev/null").redirectErrorStream(true);
    terminal.environment().remove("CI"); // which turns progress bars off
    return new OnATerminal(terminal.start());
  }

  /** What the terminal has shown so far. */
  String shown() {
    return shown.toString(StandardCharsets.UTF_8); // synchronized with the copier's writes
  }

  /** The job's JVM, a child of {@code script}. */
  ProcessHandle jvm() {
    return script
        .descendants()
        .filter(h -> h.info().command().map(c -> c.endsWith("java")).orElse(false))
        .findFirst()
        .orElseThrow();
  }

  /** Waits for the terminal to close and everything it showed to be collected. */
  void awaitEnd() throws InterruptedException {
    script.waitFor();
    copier.join();
  }
}
