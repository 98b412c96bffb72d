package dev.idem.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code idem help [COMMAND [SUBCOMMAND]]}: picocli's help command, with examples like every other
 * command's help (picocli's own is final, so it cannot take a footer).
 */
@Command(
    name = "help",
    helpCommand = true,
    description = "Show the help of idem, of a command, or of a subcommand.",
    footerHeading = "%nExamples:%n",
    footer = {"  idem help dedup", "  idem help filter build"})
final class HelpCommand implements CommandLine.IHelpCommandInitializable2, Runnable {

  @Parameters(
      paramLabel = "COMMAND",
      arity = "0..*",
      description = "The command, then its subcommand, whose help to show (none: idem's).")
  List<String> commands = new ArrayList<>();

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help message and exit.")
  boolean help;

  private CommandLine self;
  private Help.ColorScheme colors;
  private PrintWriter out;

  @Override
  public void init(
      CommandLine helpCommandLine,
      Help.ColorScheme colorScheme,
      PrintWriter outWriter,
      PrintWriter errWriter) {
    this.self = helpCommandLine;
    this.colors = colorScheme;
    this.out = outWriter;
  }

  @Override
  public void run() {
    CommandLine target = self.getParent();
    for (String name : commands) {
      CommandLine sub = target.getSubcommands().get(name);
      if (sub == null) {
        throw new ParameterException(
            self,
            "'"
                + name
                + "' is not a command of "
                + target.getCommandSpec().qualifiedName()
                + ": "
                + String.join(", ", target.getSubcommands().keySet()));
      }
      target = sub;
    }
    target.usage(out, colors);
  }
}
