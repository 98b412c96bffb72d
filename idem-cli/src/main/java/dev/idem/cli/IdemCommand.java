package dev.idem.cli;

import dev.idem.core.ByteSize;
import dev.idem.core.filter.NotEnoughMemoryException;
import dev.idem.engine.JobException;
import dev.idem.engine.run.StateMismatchException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.util.List;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code idem} command. Exit status: 0 success, 1 failure (a check failed, bad input, a file
 * that cannot be used, too little memory), 2 usage error, 70 internal error (a bug: please report
 * it).
 */
@Command(
    name = "idem",
    footerHeading = "%nExamples:%n",
    footer = {
      "  idem dedup --key id --state st -o clean.jsonl examples/clicks.jsonl",
      "  idem plan --sample examples/clicks.jsonl --key id",
      "  idem help dedup"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    description = {
      "Deduplicate very large record streams with little memory; resume killed jobs exactly once.",
      ""
    },
    subcommands = {
      DedupCommand.class,
      SortDedupCommand.class,
      NearDupCommand.class,
      DecontaminateCommand.class,
      PlanCommand.class,
      ServeCommand.class,
      SplitCommand.class,
      ReshardCommand.class,
      InspectCommand.class,
      FilterCommand.class,
      HelpCommand.class,
      CompletionCommand.class
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:success",
      "1:failure: a check failed, bad input, a file that cannot be used, or too little memory",
      "2:usage error",
      "70:internal error (a bug; please report it with the message)",
      "130:stopped by Ctrl-C (SIGINT), temporary files removed",
      "141:standard output was a pipe whose reader closed it (as 'idem ... | head'; 128 + SIGPIPE)",
      "143:stopped by kill (SIGTERM), temporary files removed"
    })
public final class IdemCommand implements Runnable {

  static final int EXIT_FAILURE = 1;
  static final int EXIT_USAGE = 2;
  static final int EXIT_INTERNAL = 70;

  /** What a shell reports for a process that SIGPIPE ended: 128 + 13. */
  static final int EXIT_CLOSED_PIPE = 141;

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "a command is required");
  }

  public static void main(String[] args) {
    Signals.install();
    if (mayUseRocksDb(args)) {
      RocksDbLibrary.preload();
    }
    System.exit(execute(Io.system(), args));
  }

  /**
   * Whether the command may open RocksDB, so its native library is worth unpacking ahead: not for
   * help, a version, or the commands that never use it.
   */
  static boolean mayUseRocksDb(String... args) {
    if (args.length == 0
        || !List.of("dedup", "split", "reshard", "inspect", "serve").contains(args[0])) {
      return false;
    }
    for (String a : args) {
      if (List.of("-h", "--help", "-V", "--version").contains(a)) {
        return false;
      }
    }
    return true;
  }

  /** Runs {@code idem args} against the given streams and returns the exit status. */
  static int execute(Io io, String... args) {
    CommandLine cli = new CommandLine(IdemCommand.class, new Factory(io));
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setOut(new java.io.PrintWriter(io.out(), true));
    cli.setErr(new java.io.PrintWriter(io.err(), true));
    cli.setParameterExceptionHandler(
        (e, a) -> {
          CommandLine at = e.getCommandLine();
          String name = at.getCommandSpec().qualifiedName();
          io.err()
              .println(
                  name + ": " + e.getMessage() + DidYouMean.of(e) + " (see '" + name + " --help')");
          return EXIT_USAGE;
        });
    cli.setExecutionExceptionHandler(
        (e, at, parsed) -> {
          if (Signals.stopping()) {
            return EXIT_FAILURE; // exiting on Ctrl-C or kill, which sets the status; say nothing
          }
          Throwable cause = e;
          if (cause instanceof UncheckedIOException u) {
            cause = u.getCause();
          }
          if (cause instanceof StateMismatchException m) {
            io.err()
                .println(at.getCommandSpec().qualifiedName() + ": " + SettingOptions.describe(m));
            return EXIT_USAGE;
          }
          if (cause instanceof JobException) {
            // a command that cannot run as asked (e.g. an output that is an input): a usage error
            io.err().println(at.getCommandSpec().qualifiedName() + ": " + cause.getMessage());
            return EXIT_USAGE;
          }
          if (IoErrors.isClosedPipe(cause)) {
            return EXIT_CLOSED_PIPE; // quietly, as a shell expects of 'idem ... | head'
          }
          if (cause instanceof IOException io1) {
            io.err().println("idem: " + IoErrors.describe(io1));
            return EXIT_FAILURE;
          }
          if (cause instanceof UserException || cause instanceof NotEnoughMemoryException) {
            io.err().println("idem: " + cause.getMessage());
            return EXIT_FAILURE;
          }
          io.err().println("idem: internal error: " + cause);
          cause.printStackTrace(io.err());
          return EXIT_INTERNAL;
        });
    int status;
    try {
      status = cli.execute(args);
    } catch (OutOfMemoryError e) {
      // picocli passes Errors through; the heap is a setting, not a bug
      boolean sort = args.length > 0 && args[0].equals("sort-dedup");
      io.err()
          .println(
              "idem: out of memory (JVM heap limit "
                  + ByteSize.format(Runtime.getRuntime().maxMemory())
                  + "): "
                  + (sort
                      ? "give sort-dedup a smaller --memory, or a larger heap (for bin/idem: "
                          + "IDEM_JAVA_OPTS=-Xmx...); with --state it resumes when rerun"
                      : "raise it with -Xmx (for bin/idem: IDEM_JAVA_OPTS=-Xmx...), or give "
                          + "dedup --exact-store rocksdb; a job with --state resumes from its "
                          + "last checkpoint when rerun"));
      return EXIT_FAILURE;
    }
    io.out().flush();
    return status;
  }

  /** Creates commands with the streams they should use. */
  private record Factory(Io io) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> cls) throws Exception {
      for (Constructor<?> c : cls.getDeclaredConstructors()) {
        if (c.getParameterCount() == 1 && c.getParameterTypes()[0] == Io.class) {
          c.setAccessible(true);
          return cls.cast(c.newInstance(io));
        }
      }
      return CommandLine.defaultFactory().create(cls);
    }
  }

  /**
   * The commands' factory for a tool that builds the command line itself: the build's man page
   * generator ({@code ManPageGenerator --factory}).
   */
  public static final class StandardFactory implements CommandLine.IFactory {
    private final Factory factory = new Factory(Io.system());

    @Override
    public <K> K create(Class<K> cls) throws Exception {
      return factory.create(cls);
    }
  }

  /** Reads the version Maven wrote into {@code idem-version.properties}. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties p = new Properties();
      try (InputStream in = IdemCommand.class.getResourceAsStream("/idem-version.properties")) {
        if (in != null) {
          p.load(in);
        }
      }
      return new String[] {
        "idem " + p.getProperty("version", "(unknown version)"),
        "Java "
            + System.getProperty("java.version")
            + " ("
            + System.getProperty("java.vm.name")
            + ")"
      };
    }
  }
}
