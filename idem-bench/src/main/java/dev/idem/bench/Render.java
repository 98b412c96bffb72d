package dev.idem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The one renderer: results rows to Markdown tables (medians over the runs, with each run's value,
 * a speed ratio against the table's reference contender) and to SVG bar charts. A table is the rows
 * of one scenario, part and size; its contenders in the order they first ran.
 */
final class Render {

  private Render() {}

  /** One table: rows of one scenario, part and size, by contender. */
  record Table(String title, String ref, Map<String, List<Results.Row>> byContender) {

    /** The median wall time of the contender's correct runs; NaN when there is none. */
    double medianWall(String contender) {
      List<Results.Row> runs = byContender.getOrDefault(contender, List.of());
      return Stats.median(
          runs.stream()
              .filter(Results.Row::correct)
              .mapToDouble(Results.Row::wallSeconds)
              .toArray());
    }

    double medianRssMib(String contender) {
      return Stats.median(
              byContender.get(contender).stream().mapToDouble(Results.Row::rssKib).toArray())
          / 1024;
    }
  }

  static List<Table> tables(List<Results.Row> rows) {
    Map<String, Table> tables = new LinkedHashMap<>();
    for (Results.Row r : rows) {
      String title =
          r.scenario()
              + (r.part() == null || r.part().isEmpty() ? "" : " / " + r.part())
              + String.format(Locale.ROOT, ", size %,d", r.size());
      tables
          .computeIfAbsent(title, t -> new Table(t, r.ref(), new LinkedHashMap<>()))
          .byContender()
          .computeIfAbsent(r.contender(), c -> new ArrayList<>())
          .add(r);
    }
    return new ArrayList<>(tables.values());
  }

  static String markdown(Table t) {
    Set<String> metrics = new LinkedHashSet<>();
    t.byContender().values().forEach(rs -> rs.forEach(r -> metrics.addAll(r.metrics().keySet())));
    String ref = t.ref() == null ? "" : t.ref();
    double refWall = t.medianWall(ref);
    StringBuilder b =
        new StringBuilder("**" + t.title() + "**\n\n| contender | wall s, median (runs) |");
    b.append(refWall > 0 ? " × " + ref + "'s speed |" : "")
        .append(" cores | peak RSS MiB | correct |");
    metrics.forEach(m -> b.append(' ').append(m.replace('_', ' ')).append(" |"));
    b.append("\n|---|---:|").append(refWall > 0 ? "---:|" : "").append("---:|---:|---|");
    b.append("---:|".repeat(metrics.size())).append('\n');
    Set<String> machines = new TreeSet<>();
    Set<String> commits = new TreeSet<>();
    Set<String> dates = new TreeSet<>();
    for (Map.Entry<String, List<Results.Row>> e : t.byContender().entrySet()) {
      List<Results.Row> runs = e.getValue();
      double wall = t.medianWall(e.getKey());
      List<String> each = runs.stream().map(r -> two(r.wallSeconds())).toList();
      double cores =
          Stats.median(runs.stream().mapToDouble(r -> r.cpuSeconds() / r.wallSeconds()).toArray());
      long wrong = runs.stream().filter(r -> !r.correct()).count();
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %s (%s) |",
              e.getKey(),
              Double.isNaN(wall) ? "failed" : two(wall),
              String.join(" / ", each)));
      if (refWall > 0) {
        b.append(' ').append(two(Stats.speedup(refWall, wall))).append(" |");
      }
      b.append(
          String.format(
              Locale.ROOT,
              " %s | %s |",
              cores > 0 ? String.format(Locale.ROOT, "%.2f", cores) : "–",
              rssText(t, e.getKey())));
      b.append(
              wrong == 0
                  ? " yes"
                  : " **no**: "
                      + runs.stream().filter(r -> !r.correct()).findFirst().orElseThrow().check())
          .append(" |");
      for (String m : metrics) {
        b.append(' ').append(metric(runs, m)).append(" |");
      }
      b.append('\n');
      for (Results.Row r : runs) {
        Map<String, Object> m = r.machine();
        machines.add(
            String.format(
                Locale.ROOT,
                "%s, %s cores, %s GiB, JDK %s",
                m.get("cpu"),
                m.get("cores"),
                m.get("memory_gib"),
                m.get("jdk")));
        commits.add(r.commit());
        dates.add(r.time().substring(0, 10));
      }
    }
    b.append(
        String.format(
            Locale.ROOT,
            "%nMachine: %s. Commit %s, %s.%n",
            String.join("; ", machines),
            String.join(", ", commits),
            String.join(", ", dates)));
    return b.toString();
  }

  private static String rssText(Table t, String contender) {
    double mib = t.medianRssMib(contender);
    return mib > 0 ? String.format(Locale.ROOT, "%,.0f", mib) : "–";
  }

  /** A metric's median over the runs when it is a number, else its distinct values. */
  private static String metric(List<Results.Row> runs, String name) {
    List<Object> values =
        runs.stream().map(r -> r.metrics().get(name)).filter(v -> v != null).toList();
    if (!values.isEmpty() && values.stream().allMatch(v -> v instanceof Number)) {
      return num(
          Stats.median(values.stream().mapToDouble(v -> ((Number) v).doubleValue()).toArray()));
    }
    return String.join(", ", new LinkedHashSet<>(values.stream().map(String::valueOf).toList()));
  }

  /** A number for a table: integers with separators, fractions to 4 decimals at most. */
  static String num(double v) {
    if (Double.isNaN(v) || v < 0) {
      return "–";
    }
    if (v == 0 || v >= 1000 || (v == Math.rint(v) && v >= 1)) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    String s = String.format(Locale.ROOT, v >= 10 ? "%.1f" : v >= 0.001 ? "%.4f" : "%.2g", v);
    return s.contains("e") ? s : s.replaceAll("0+$", "").replaceAll("\\.$", "");
  }

  /** Seconds and ratios: two decimals. */
  static String two(double v) {
    return Double.isNaN(v) || v < 0
        ? "–"
        : String.format(Locale.ROOT, v >= 1000 ? "%,.0f" : "%.2f", v);
  }

  /** Horizontal bars of each contender's median wall time and peak RSS. */
  static String svg(Table t) {
    List<String> names = new ArrayList<>(t.byContender().keySet());
    int rowH = 22;
    int panelH = names.size() * rowH + 30;
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n",
            2 * panelH + 30));
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"10\" y=\"18\" font-weight=\"bold\">%s</text>%n",
            escape(t.title())));
    String[] panels = {"wall time, median (s)", "peak RSS, median (MiB)"};
    for (int p = 0; p < 2; p++) {
      int y0 = 30 + p * panelH;
      double max = 0;
      double[] v = new double[names.size()];
      for (int i = 0; i < v.length; i++) {
        v[i] = p == 0 ? t.medianWall(names.get(i)) : t.medianRssMib(names.get(i));
        max = Math.max(max, Double.isNaN(v[i]) ? 0 : v[i]);
      }
      b.append(
          String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\">%s</text>%n", y0 + 14, panels[p]));
      for (int i = 0; i < v.length; i++) {
        int y = y0 + 22 + i * rowH;
        double w = max > 0 && v[i] > 0 ? 420 * v[i] / max : 0;
        b.append(
            String.format(
                Locale.ROOT,
                "<text x=\"250\" y=\"%d\" text-anchor=\"end\">%s</text>",
                y + 14,
                escape(names.get(i))));
        b.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"260\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"/>",
                y + 2,
                w,
                names.get(i).startsWith("idem") ? "#2a6fbb" : "#999"));
        b.append(
            String.format(
                Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%s</text>%n", 265 + w, y + 14, num(v[i])));
      }
    }
    return b.append("</svg>\n").toString();
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  /** Renders every table of {@code rows} to Markdown, and to SVG files in {@code svgDir}. */
  static String all(List<Results.Row> rows, Path svgDir) throws IOException {
    StringBuilder b = new StringBuilder();
    int i = 0;
    for (Table t : tables(rows)) {
      b.append(markdown(t)).append('\n');
      if (svgDir != null) {
        Files.createDirectories(svgDir);
        Path f =
            svgDir.resolve(
                String.format(
                    Locale.ROOT, "%02d-%s.svg", ++i, t.title().replaceAll("[^A-Za-z0-9]+", "-")));
        Files.writeString(f, svg(t));
      }
    }
    return b.toString();
  }
}
