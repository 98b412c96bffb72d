package dev.idem.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The command reference in {@code docs/cli/}: one Markdown page per command, its {@code --help}
 * exactly (usage, options, exit status, examples), and an index, all from the picocli model, as the
 * man pages are. {@code CommandReferenceTest} fails when the pages in the repository differ from
 * the model, so they cannot drift; {@code main} (or that test with {@code -Didem.docs.write=true})
 * writes them.
 */
public final class CommandReference {

  private CommandReference() {}

  /** The pages, by file name: {@code README.md} (the index), {@code idem-dedup.md}, ... */
  public static Map<String, String> pages() {
    CommandLine root = new CommandLine(IdemCommand.class, new IdemCommand.StandardFactory());
    root.setCaseInsensitiveEnumValuesAllowed(true);
    List<CommandLine> all = new ArrayList<>();
    add(root, all);
    Map<String, String> pages = new LinkedHashMap<>();
    StringBuilder index =
        new StringBuilder(
            "# Command reference\n\n"
                + GENERATED
                + "\nEach page is the command's `--help`, as `idem COMMAND --help` prints it and "
                + "`man idem-COMMAND` shows it (`bin/idem install` puts the man pages on the "
                + "MANPATH). How the commands fit together: [docs/CLI.md](../CLI.md).\n\n"
                + "| command | what it does |\n| --- | --- |\n");
    for (CommandLine c : all) {
      CommandSpec spec = c.getCommandSpec();
      String file = fileName(spec);
      String[] description = spec.usageMessage().description();
      index
          .append("| [`")
          .append(spec.qualifiedName())
          .append("`](")
          .append(file)
          .append(") | ")
          .append(description.length == 0 ? "" : description[0].replace("|", "\\|"))
          .append(" |\n");
      pages.put(file, page(c));
    }
    Map<String, String> ordered = new LinkedHashMap<>();
    ordered.put("README.md", index.toString());
    ordered.putAll(pages);
    return ordered;
  }

  private static final String GENERATED =
      "<!-- Generated from the commands' picocli model by dev.idem.cli.CommandReference; do not "
          + "edit. CommandReferenceTest fails when a page differs from the model; to rewrite them: "
          + "./mvnw -pl idem-cli -am test -Dtest=CommandReferenceTest "
          + "-Dsurefire.failIfNoSpecifiedTests=false -Didem.docs.write=true -->\n";

  private static void add(CommandLine c, List<CommandLine> all) {
    all.add(c);
    for (CommandLine sub : c.getSubcommands().values()) {
      add(sub, all);
    }
  }

  /** {@code idem-filter-build.md} for {@code idem filter build}. */
  static String fileName(CommandSpec spec) {
    return spec.qualifiedName().replace(' ', '-') + ".md";
  }

  private static String page(CommandLine c) {
    CommandSpec spec = c.getCommandSpec();
    String help = c.getUsageMessage(Help.Ansi.OFF).stripTrailing();
    return "# "
        + spec.qualifiedName()
        + "\n\n"
        + GENERATED
        + "\n[All commands](README.md) · man page: `man "
        + spec.qualifiedName().replace(' ', '-')
        + "`\n\n```text\n"
        + help
        + "\n```\n";
  }

  /** Writes the pages into {@code args[0]} (docs/cli). */
  public static void main(String[] args) throws IOException {
    write(Path.of(args.length > 0 ? args[0] : "docs/cli"));
  }

  static void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    for (Map.Entry<String, String> p : pages().entrySet()) {
      Files.writeString(dir.resolve(p.getKey()), p.getValue(), StandardCharsets.UTF_8);
    }
  }
}
