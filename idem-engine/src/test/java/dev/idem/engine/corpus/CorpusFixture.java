package dev.idem.engine.corpus;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.run.JobListener;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Generated corpora for the corpus tests: documents made of planted boilerplate, paragraphs
 * repeated from earlier documents (and from the same one), fresh paragraphs of a small vocabulary
 * with punctuation, case and Unicode variants, empty and white-space paragraphs, texts escaped in
 * every way JSON allows (and fields around the text), and evaluation passages planted in some of
 * them.
 */
final class CorpusFixture {

  static final ObjectMapper JSON = new ObjectMapper();

  static final String[] BOILERPLATE = {
    "Accept all cookies to continue reading this page.",
    "© 2024 Example Corp. All rights reserved.",
    "Home | News | Sport | Weather | Contact us",
    "Café naïve — Straße ünïcödé “quoted”",
    "Share this: 😀 🚀 on every network",
    "Subscribe\tto our\tnewsletter",
  };

  static final String[] WORDS = {
    "the", "The", "THE", "a", "cat", "sat", "on", "mat.", "don't", "end!", "(yes)", "ﬁne",
    "ＣＡＦÉ", "café", "Straße", "über", "—", "...", "x", "y", "z", "river", "bank", "money",
    "run", "runs", "ran", "data", "model", "eval", "42", "3.14", "naïve", "日本語", "😀",
  };

  /** One record: its line, its text, and where the text's JSON string sits in the line. */
  record Doc(String line, String text, String prefix, String suffix) {}

  private CorpusFixture() {}

  static List<Doc> generate(
      SplittableRandom r, int docs, CorpusSpec.Split split, List<String> planted) {
    List<String> earlier = new ArrayList<>();
    List<Doc> out = new ArrayList<>();
    for (int i = 0; i < docs; i++) {
      int n = r.nextInt(9);
      List<String> ps = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        int roll = r.nextInt(100);
        String p;
        if (roll < 25) {
          p = BOILERPLATE[r.nextInt(BOILERPLATE.length)];
        } else if (roll < 40 && !earlier.isEmpty()) {
          p = earlier.get(r.nextInt(earlier.size()));
        } else if (roll < 44) {
          p = "";
        } else if (roll < 47) {
          p = r.nextBoolean() ? "  \t " : " ";
        } else if (roll < 49) {
          p = "lone \uD800 surrogate " + r.nextInt(3);
        } else if (roll < 53 && !planted.isEmpty()) {
          p = words(r, 3) + " " + planted.get(r.nextInt(planted.size())) + " " + words(r, 2);
        } else {
          p = words(r, 1 + r.nextInt(25));
        }
        ps.add(p);
        if (!p.isBlank() && r.nextInt(3) == 0) {
          earlier.add(p);
        }
      }
      StringBuilder text = new StringBuilder();
      for (int k = 0; k < ps.size(); k++) {
        if (k > 0) {
          text.append(
              split == CorpusSpec.Split.NEWLINE
                  ? "\n"
                  : switch (r.nextInt(4)) {
                    case 0 -> "\n";
                    case 1 -> "\n \n";
                    default -> "\n\n";
                  });
        }
        text.append(ps.get(k));
      }
      if (r.nextInt(5) == 0) {
        text.append('\n');
      }
      out.add(record(r, i, text.toString()));
    }
    return out;
  }

  static String words(SplittableRandom r, int count) {
    StringBuilder b = new StringBuilder();
    for (int w = 0; w < count; w++) {
      if (w > 0) {
        b.append(r.nextInt(10) == 0 ? "  " : " ");
      }
      b.append(WORDS[r.nextInt(WORDS.length)]);
    }
    return b.toString();
  }

  /** The record of document {@code id}, its text escaped one of the ways JSON allows. */
  static Doc record(SplittableRandom r, int id, String text) {
    String value = escaped(r, text);
    String prefix;
    String suffix;
    switch (r.nextInt(3)) {
      case 0 -> {
        prefix = "{\"text\":";
        suffix = ",\"id\":" + id + ",\"meta\":{\"u\":\"a\\\"b\",\"n\":[1,{\"x\":null}]}}";
      }
      case 1 -> {
        prefix = "{\"id\":" + id + ", \"text\" : ";
        suffix = " , \"tail\": \"é\\u00e9\"}";
      }
      default -> {
        prefix = "{\"meta\":{\"text\":\"not this one\"},\"id\":" + id + ",\"text\":";
        suffix = "}";
      }
    }
    return new Doc(prefix + value + suffix, text, prefix, suffix);
  }

  private static String escaped(SplittableRandom r, String text) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && !isLone(text, i)) {
        b.append(c).append(text.charAt(++i)); // a pair: as UTF-8 (escaping half would split it)
      } else if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c == '\n') {
        b.append(r.nextInt(8) == 0 ? "\\u000A" : "\\n");
      } else if (c < 0x20 || Character.isSurrogate(c) && isLone(text, i)) {
        b.append(String.format("\\u%04X", (int) c));
      } else if (c == '/' || r.nextInt(12) == 0) {
        b.append(c == '/' && r.nextBoolean() ? "\\/" : String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  private static boolean isLone(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
    }
    return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
  }

  static Path write(Path dir, String name, List<Doc> docs) throws IOException {
    StringBuilder b = new StringBuilder();
    for (Doc d : docs) {
      b.append(d.line()).append('\n');
    }
    Path f = dir.resolve(name);
    Files.write(f, b.toString().getBytes(StandardCharsets.UTF_8));
    return f;
  }

  /**
   * The output an exact job must write, byte for byte: each document the reference keeps, as read
   * or with its text written again as the shortest JSON string.
   */
  static byte[] expectedOutput(
      List<Doc> docs, List<CorpusReference.Decision> decisions, int minDocChars) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < docs.size(); i++) {
      CorpusReference.Decision d = decisions.get(i);
      if (!d.written(minDocChars)) {
        continue;
      }
      Doc doc = docs.get(i);
      b.append(
              d.changed()
                  ? doc.prefix() + CorpusReference.jsonString(d.left()) + doc.suffix()
                  : doc.line())
          .append('\n');
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Runs a job, its warnings kept. */
  static CorpusResult run(CorpusSpec spec) throws IOException {
    return CorpusJob.run(
        spec, new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(), JobListener.NONE);
  }

  /** Deletes the spans of an annotation line from {@code text} (code points), as a mixer would. */
  static String applySpans(String text, JsonNode spans) {
    int[] cps = text.codePoints().toArray();
    boolean[] gone = new boolean[cps.length];
    for (JsonNode s : spans) {
      for (int i = s.get(0).asInt(); i < s.get(1).asInt(); i++) {
        gone[i] = true;
      }
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < cps.length; i++) {
      if (!gone[i]) {
        b.appendCodePoint(cps[i]);
      }
    }
    return b.toString();
  }

  static void assertSameBytes(Path actual, byte[] expected) throws IOException {
    byte[] got = Files.readAllBytes(actual);
    if (!java.util.Arrays.equals(got, expected)) {
      // the first differing line, readable
      String[] a = new String(got, StandardCharsets.UTF_8).split("\n", -1);
      String[] e = new String(expected, StandardCharsets.UTF_8).split("\n", -1);
      for (int i = 0; i < Math.min(a.length, e.length); i++) {
        assertThat(a[i]).as("line " + (i + 1) + " of " + actual).isEqualTo(e[i]);
      }
      assertThat(a.length).as("lines of " + actual).isEqualTo(e.length);
    }
  }
}
