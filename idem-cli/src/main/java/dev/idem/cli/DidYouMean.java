package dev.idem.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The "did you mean" of a usage error: the subcommands or options of the command nearest to what
 * was typed, by edit distance (a typo, a swap, a letter missing or extra), at most two of them.
 */
final class DidYouMean {

  private DidYouMean() {}

  /** {@code "; did you mean --key?"} for a mistyped option or command, else empty. */
  static String of(ParameterException e) {
    if (!(e instanceof UnmatchedArgumentException u) || u.getUnmatched().isEmpty()) {
      return "";
    }
    String typed = u.getUnmatched().get(0);
    CommandSpec spec = e.getCommandLine().getCommandSpec();
    List<String> candidates = new ArrayList<>();
    if (typed.startsWith("-")) {
      String name = typed.contains("=") ? typed.substring(0, typed.indexOf('=')) : typed;
      for (OptionSpec o : spec.options()) {
        candidates.addAll(List.of(o.names()));
      }
      typed = name;
    } else {
      for (CommandLine sub : spec.subcommands().values()) {
        candidates.add(sub.getCommandName());
      }
    }
    List<String> near = nearest(typed, candidates);
    return near.isEmpty() ? "" : "; did you mean " + String.join(" or ", near) + "?";
  }

  /** The candidates within a small edit distance of {@code typed}, nearest first, at most two. */
  static List<String> nearest(String typed, List<String> candidates) {
    int limit = Math.max(1, Math.min(3, typed.length() / 3));
    List<String> out = new ArrayList<>();
    for (String c : candidates) {
      if (!out.contains(c) && distance(typed, c) <= limit) {
        out.add(c);
      }
    }
    out.sort(Comparator.comparingInt((String c) -> distance(typed, c)).thenComparing(c -> c));
    return out.subList(0, Math.min(2, out.size()));
  }

  /** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
