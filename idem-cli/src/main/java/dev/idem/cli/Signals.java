package dev.idem.cli;

import java.io.PrintStream;
import java.util.function.Supplier;
import sun.misc.Signal;

/**
 * Ctrl-C and {@code kill} as a shell user expects: the JVM's shutdown runs (temporary files
 * removed, the lock released), nothing alarming is printed, and the status is 128 + the signal (130
 * for SIGINT, 143 for SIGTERM). A resumable job says where it stopped and that the same command
 * resumes it ({@link #whenStopped}).
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
          sayWhereItStopped(System.err);
          System.exit(status); // runs the shutdown hooks, unlike the signal's default action
        });
  }

  /** What a resumable job says when a signal stops it; {@code null}: nothing. */
  private static volatile Supplier<String> whenStopped;

  /**
   * Has a resumable job say, when Ctrl-C or {@code kill} stops it, where it stopped and that the
   * same command resumes it: without that, a job stopped by hand exits 130 and says nothing, and a
   * user cannot tell whether its work is lost.
   *
   * @param message the lines to print, asked for when the signal comes (the job's position then)
   */
  static void whenStopped(Supplier<String> message) {
    whenStopped = message;
  }

  /** Prints the message of {@link #whenStopped}, if any; never throws. */
  static void sayWhereItStopped(PrintStream err) {
    Supplier<String> message = whenStopped;
    if (message == null) {
      return;
    }
    try {
      err.println(message.get());
      err.flush();
    } catch (RuntimeException e) {
      // a message is not worth failing the exit for
    }
  }

  /**
   * The message of a job resumable from {@code state}, stopped {@code where} ("after 1,200
   * records", or empty).
   */
  static String resumable(String command, Object state, String where) {
    return command
        + ": stopped"
        + (where.isEmpty() ? "" : " " + where)
        + "; "
        + state
        + " keeps the job's last checkpoint: run the same command to resume from there";
  }

  /** Whether the process is exiting on a signal: a failure seen now is its consequence. */
  static boolean stopping() {
    return stopping;
  }
}
