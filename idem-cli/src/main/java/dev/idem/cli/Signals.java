package dev.idem.cli;

import sun.misc.Signal;

/**
 * Ctrl-C and {@code kill} as a shell user expects: the JVM's shutdown runs (temporary files
 * removed, the lock released), nothing alarming is printed, and the status is 128 + the signal (130
 * for SIGINT, 143 for SIGTERM).
 *
 * <p>Two things stand in the way without this class. The progress bar's terminal library takes
 * SIGINT for itself when it opens the terminal, and then ignores it, so Ctrl-C did nothing until
 * the job ended; {@link #exitOnInterrupt} takes it back ({@code Terminal.progressBarConsumer}). And
 * a job whose files the shutdown removes fails on them while the JVM exits ("No such file"); {@link
 * #stopping} lets the error handler keep quiet then.
 */
final class Signals {

  private static volatile boolean stopping;

  /** Whether {@link #install} ran: tests run commands in their own JVM, and keep its handlers. */
  private static volatile boolean installed;

  private Signals() {}

  /** Installs the handlers for SIGINT and SIGTERM; for the real process only, from main. */
  static void install() {
    installed = true;
    exitOn("INT", 130);
    exitOn("TERM", 143);
  }

  /** (Re)takes SIGINT: after anything that may have taken it, such as a progress bar. */
  static void exitOnInterrupt() {
    if (installed) {
      exitOn("INT", 130);
    }
  }

  private static void exitOn(String name, int status) {
    Signal.handle(
        new Signal(name),
        s -> {
          stopping = true;
          System.exit(status); // runs the shutdown hooks, unlike the signal's default action
        });
  }

  /** Whether the process is exiting on a signal: a failure seen now is its consequence. */
  static boolean stopping() {
    return stopping;
  }
}
