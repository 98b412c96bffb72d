package dev.idem.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The plot of state size over event time, as a hand-written SVG (two panels: entries held, and
 * bytes), so the report needs no plotting dependency. x is minutes of event time since the start of
 * the stream; dashed lines mark the 10-minute window boundaries.
 */
final class StateSizeSvg {

  private static final int WIDTH = 900;
  private static final int PANEL = 250;
  private static final int LEFT = 80;
  private static final int RIGHT = 190;
  private static final int TOP = 40;
  private static final int GAP = 70;
  private static final String[][] SERIES = {
    {"idem-sliding", "#1f77b4"}, {"idem-tumbling", "#2ca02c"}, {"hashmap-ttl", "#d62728"}
  };

  private final long events;
  private final StringBuilder svg = new StringBuilder();
  private double maxMinutes;

  StateSizeSvg(long events) {
    this.events = events;
  }

  String render(Map<String, WindowResult> results) {
    for (String[] s : SERIES) {
      for (WindowResult.Point p : results.get(s[0]).samples) {
        maxMinutes = Math.max(maxMinutes, minutes(p));
      }
    }
    int height = TOP + 2 * PANEL + GAP + 50;
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
                + " height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n",
            WIDTH,
            height));
    svg.append(
        String.format(
            Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, height));
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"20\" font-size=\"14\">State of"
                + " windowed dedup over event time: %,d-event click stream, 10-minute windows</text>%n",
            LEFT,
            events));
    panel(results, TOP, "entries held (millions)", p -> p.held() / 1e6, false);
    panel(results, TOP + PANEL + GAP, "state heap (MiB)", p -> p.bytes() / 1048576.0, true);
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\">event time (minutes since" + " start)</text>%n",
            LEFT + 250,
            height - 12));
    return svg.append("</svg>\n").toString();
  }

  private double minutes(WindowResult.Point p) {
    return (p.eventTime() - ClickStream.START) / 60_000.0;
  }

  /** One panel; the bytes panel draws idem's JOL samples and everyone's full-GC heap samples. */
  private void panel(
      Map<String, WindowResult> results,
      int top,
      String title,
      ToDoubleFunction<WindowResult.Point> y,
      boolean bytes) {
    List<List<WindowResult.Point>> lines = new ArrayList<>();
    List<List<WindowResult.Point>> dots = new ArrayList<>();
    double maxY = 0;
    for (String[] s : SERIES) {
      WindowResult r = results.get(s[0]);
      List<WindowResult.Point> line = new ArrayList<>();
      for (WindowResult.Point p : r.samples) {
        if (!bytes || p.bytes() >= 0) {
          line.add(p);
        }
      }
      List<WindowResult.Point> dot = bytes ? r.heap : List.of();
      lines.add(line);
      dots.add(dot);
      for (WindowResult.Point p : line) {
        maxY = Math.max(maxY, y.applyAsDouble(p));
      }
      for (WindowResult.Point p : dot) {
        maxY = Math.max(maxY, y.applyAsDouble(p));
      }
    }
    double yTop = niceCeiling(maxY);
    int plotW = WIDTH - LEFT - RIGHT;
    axes(top, plotW, title, yTop);
    for (int i = 0; i < SERIES.length; i++) {
      String color = SERIES[i][1];
      StringBuilder pts = new StringBuilder();
      for (WindowResult.Point p : lines.get(i)) {
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(p, plotW), yPix(y, p, top, yTop)));
      }
      if (pts.length() > 0) {
        // the map's line dashed: where it and idem's sliding line coincide, both stay visible
        svg.append(
            String.format(
                Locale.ROOT,
                "<polyline fill=\"none\" stroke=\"%s\""
                    + " stroke-width=\"1.8\"%s points=\"%s\"/>%n",
                color,
                SERIES[i][0].startsWith("hashmap") ? " stroke-dasharray=\"6,4\"" : "",
                pts.toString().trim()));
      }
      boolean dotsOnly = lines.get(i).isEmpty();
      StringBuilder dotPts = new StringBuilder();
      for (WindowResult.Point p : dots.get(i)) {
        double px = x(p, plotW);
        double py = yPix(y, p, top, yTop);
        dotPts.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
        svg.append(
            String.format(
                Locale.ROOT,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"" + " fill=\"%s\" stroke=\"%s\"/>%n",
                px,
                py,
                dotsOnly ? color : "white",
                color));
      }
      if (dotsOnly && dotPts.length() > 0) {
        svg.append(
            String.format(
                Locale.ROOT,
                "<polyline fill=\"none\" stroke=\"%s\""
                    + " stroke-width=\"1.8\" stroke-dasharray=\"5,3\" points=\"%s\"/>%n",
                color,
                dotPts.toString().trim()));
      }
      int ly = top + 20 + 18 * i;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\""
                  + " stroke=\"%s\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">%s</text>%n",
              LEFT + plotW + 12,
              ly,
              LEFT + plotW + 32,
              ly,
              color,
              LEFT + plotW + 38,
              ly + 4,
              SERIES[i][0]));
    }
    if (bytes) {
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" font-size=\"10\">"
                  + "<tspan x=\"%d\" dy=\"0\">lines: JOL walk of idem's</tspan>"
                  + "<tspan x=\"%d\" dy=\"13\">state every n/200 events;</tspan>"
                  + "<tspan x=\"%d\" dy=\"13\">circles: heap after full GC</tspan>"
                  + "<tspan x=\"%d\" dy=\"13\">minus baseline, every n/20</tspan>"
                  + "<tspan x=\"%d\" dy=\"13\">(the only measure for the</tspan>"
                  + "<tspan x=\"%d\" dy=\"13\">HashMap: dashed)</tspan></text>%n",
              LEFT + plotW + 12,
              top + 90,
              LEFT + plotW + 12,
              LEFT + plotW + 12,
              LEFT + plotW + 12,
              LEFT + plotW + 12,
              LEFT + plotW + 12,
              LEFT + plotW + 12));
    }
  }

  private void axes(int top, int plotW, String title, double yTop) {
    int bottom = top + PANEL;
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n",
            LEFT,
            top - 8,
            title));
    for (int m = 0; m <= maxMinutes; m += 10) {
      double px = LEFT + plotW * m / Math.max(1e-9, maxMinutes);
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\""
                  + " stroke=\"#ccc\" stroke-dasharray=\"3,3\"/><text x=\"%.1f\" y=\"%d\""
                  + " text-anchor=\"middle\">%d</text>%n",
              px,
              top,
              px,
              bottom,
              px,
              bottom + 15,
              m));
    }
    for (int i = 0; i <= 4; i++) {
      double v = yTop * i / 4;
      double py = bottom - PANEL * i / 4.0;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\""
                  + " stroke=\"#eee\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
              LEFT,
              py,
              LEFT + plotW,
              py,
              LEFT - 6,
              py + 4,
              label(v)));
    }
    svg.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\""
                + " fill=\"none\" stroke=\"black\"/>%n",
            LEFT,
            top,
            plotW,
            PANEL));
  }

  private double x(WindowResult.Point p, int plotW) {
    return LEFT + plotW * minutes(p) / Math.max(1e-9, maxMinutes);
  }

  private static double yPix(
      ToDoubleFunction<WindowResult.Point> y, WindowResult.Point p, int top, double yTop) {
    return top + PANEL - PANEL * y.applyAsDouble(p) / yTop;
  }

  private static double niceCeiling(double v) {
    if (v <= 0) {
      return 1;
    }
    double step = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
      if (m * step >= v) {
        return m * step;
      }
    }
    return 10 * step;
  }

  private static String label(double v) {
    return new java.math.BigDecimal(v)
        .round(new java.math.MathContext(3))
        .stripTrailingZeros()
        .toPlainString();
  }
}
