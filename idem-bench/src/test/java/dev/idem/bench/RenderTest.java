package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Results as data: what is appended reads back, and tables show medians and ratios of it. */
class RenderTest {

  @TempDir Path dir;

  private static ProcessHarness.Outcome run(double wall, long rssKiB) {
    return new ProcessHarness.Outcome(0, wall, wall / 2, rssKiB, -1, false, List.of(), "");
  }

  @Test
  void rowsReadBackAndRenderAsMediansWithRatiosToTheReference() throws Exception {
    Results results = new Results(dir.resolve("r/results.jsonl"));
    double[][] walls = {{10, 12, 11}, {20, 24, 30}};
    String[] names = {"idem-state", "sort"};
    for (int rep = 1; rep <= 3; rep++) {
      for (int c = 0; c < 2; c++) {
        boolean correct = !(c == 1 && rep == 2);
        results.append(
            "exact-lines",
            "",
            names[c],
            1000,
            rep,
            run(walls[c][rep - 1], 2048 * (c + 1)),
            correct,
            correct ? "exact" : "missed 3",
            "idem-state",
            Map.of("records_per_s", 100 * rep));
      }
    }
    List<Results.Row> rows = Results.read(results.file());
    assertThat(rows).hasSize(6);
    assertThat(rows.get(0).wallSeconds()).isEqualTo(10);
    assertThat(rows.get(0).machine()).containsKey("cores");
    assertThat(rows.get(0).commit()).isNotBlank();

    List<Render.Table> tables = Render.tables(rows);
    assertThat(tables).hasSize(1);
    Render.Table t = tables.get(0);
    assertThat(t.medianWall("idem-state")).isEqualTo(11);
    assertThat(t.medianWall("sort")).isEqualTo(25); // its wrong run (24 s) counts for nothing
    assertThat(t.medianRssMib("sort")).isEqualTo(4);
    String md = Render.markdown(t);
    assertThat(md)
        .contains("| idem-state | 11.00 (10.00 / 12.00 / 11.00) | 1.00 |")
        .contains("| sort | 25.00 (20.00 / 24.00 / 30.00) | 0.44 |") // 11 / 25
        .contains("**no**: missed 3")
        .contains("| 200 |"); // the metric's median
    assertThat(Render.svg(t)).startsWith("<svg").contains(">idem-state<").endsWith("</svg>\n");
  }

  @Test
  void targetsAreJudgedFromTheMedians() throws Exception {
    Results results = new Results(dir.resolve("t.jsonl"));
    String[] names = {"idem-state", "sort", "duckdb-256MB", "polars", "duckdb"};
    double[] walls = {10, 16, 14, 13, 9};
    long[] rss = {500, 60, 450, 3000, 2400};
    for (int c = 0; c < names.length; c++) {
      results.append(
          "exact-lines",
          "",
          names[c],
          1,
          1,
          run(walls[c], rss[c] << 10),
          true,
          "exact",
          "idem-state",
          Map.of());
    }
    String t = ExactDedup.targets(Render.tables(Results.read(results.file())).get(0));
    assertThat(t)
        .contains("speed vs sort: 1.60× (target ≥ 1.5×): met")
        .contains("speed vs duckdb-256MB: 1.40× (target ≥ 1.5×): missed")
        .contains("speed vs polars: 1.30× (target ≥ 1.2×): met")
        .contains("peak RSS vs duckdb: 500 MiB against 2,400 MiB (target: less): met");
  }

  @Test
  void numbersKeepFourDecimalsAtMostAndUnknownsShowADash() {
    assertThat(Render.num(0.99143)).isEqualTo("0.9914");
    assertThat(Render.num(1.0)).isEqualTo("1");
    assertThat(Render.num(0.00045)).isEqualTo("0.00045");
    assertThat(Render.num(1234567)).isEqualTo("1,234,567");
    assertThat(Render.num(-1)).isEqualTo("–");
    assertThat(Render.two(Double.NaN)).isEqualTo("–");
  }
}
