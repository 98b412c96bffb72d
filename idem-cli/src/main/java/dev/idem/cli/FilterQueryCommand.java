package dev.idem.cli;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.input.LineReader;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code idem filter query}: one answer per key. */
@Command(
    name = "query",
    footerHeading = "%nExamples:%n",
    footer = {
      "  idem filter build --expected 1M -o urls.idx urls.txt",
      "  # KEY<TAB>maybe (possibly added) or KEY<TAB>new (certainly never added)",
      "  idem filter query urls.idx https://example.com/a https://example.com/zzz",
      "  idem filter query urls.idx < more-urls.txt"
    },
    mixinStandardHelpOptions = true,
    versionProvider = IdemCommand.Version.class,
    description = {
      "Ask a filter about keys given as arguments, or one per line on standard input.",
      "Prints KEY<TAB>maybe (possibly added) or KEY<TAB>new (certainly never added) per key, "
          + "in input order; exit status 0 whatever the answers. Keys are normalised and hashed "
          + "the way the snapshot records.",
      ""
    })
final class FilterQueryCommand implements Callable<Integer> {

  private static final byte[] MAYBE = "\tmaybe\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NEW = "\tnew\n".getBytes(StandardCharsets.US_ASCII);

  @Parameters(index = "0", paramLabel = "FILTER", description = "Snapshot file.")
  Path file;

  @Parameters(
      index = "1..*",
      paramLabel = "KEY",
      description = "Keys to query; none: read keys from standard input, one per line.")
  List<String> keys = List.of();

  @Option(
      names = "--load",
      defaultValue = "auto",
      paramLabel = "MODE",
      converter = ChoiceConverter.Load.class,
      completionCandidates = ChoiceConverter.Load.class,
      description =
          "How to load the filter: auto (map it when larger than a quarter of the "
              + "heap), heap or map (default: ${DEFAULT-VALUE}).")
  SnapshotLoader.Mode load;

  private final Io io;

  FilterQueryCommand(Io io) {
    this.io = io;
  }

  @Override
  public Integer call() throws IOException {
    FilterSnapshot snapshot = SnapshotLoader.open(file, load);
    MembershipFilter filter = snapshot.filter();
    Fingerprinter fingerprinter = snapshot.fingerprinter();
    OutputStream out = new BufferedOutputStream(new NamedOutput("<stdout>", io.data()), 1 << 16);
    if (!keys.isEmpty()) {
      for (String key : keys) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        answer(out, filter, fingerprinter, bytes, 0, bytes.length, "argument '" + key + "'");
      }
    } else {
      Terminal.sayWhenReadingTheTerminal(io, "idem filter query", List.of(), "keys");
      LineReader reader = new LineReader(new FlushingInputStream(io.in(), out), "<stdin>");
      while (reader.next()) {
        answer(
            out,
            filter,
            fingerprinter,
            reader.bytes(),
            reader.offset(),
            reader.length(),
            "<stdin>:" + reader.lineNumber());
      }
    }
    out.flush();
    return 0;
  }

  private static void answer(
      OutputStream out,
      MembershipFilter filter,
      Fingerprinter fp,
      byte[] key,
      int offset,
      int length,
      String where)
      throws IOException {
    boolean maybe;
    try {
      maybe = filter.mightContain(fp.fingerprint(key, offset, length));
    } catch (IllegalArgumentException e) {
      out.flush();
      throw new UserException(where + ": " + e.getMessage());
    }
    out.write(key, offset, length);
    out.write(maybe ? MAYBE : NEW);
  }
}
