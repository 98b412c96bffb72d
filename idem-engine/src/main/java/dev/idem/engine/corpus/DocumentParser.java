package dev.idem.engine.corpus;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.idem.core.Fingerprinter;
import dev.idem.core.KeyNormalizer;
import dev.idem.core.filter.MembershipFilter;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * Turns one JSON Lines record into a {@link ParsedDocument}: finds the content field (and the id,
 * for {@code --annotate}) with Jackson's streaming parser, cuts the text into paragraphs and hashes
 * what each unit is judged by. Runs on the parsing threads, one parser per thread (it reuses its
 * buffers); a decontamination's evaluation set is only read here, never changed.
 *
 * <p>Why it is long: finding the fields with a streaming parser, splitting paragraphs and hashing
 * units reuse one set of per-thread buffers, which is the reason the parser exists.
 */
final class DocumentParser {

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxStringLength(Integer.MAX_VALUE)
                  .maxNestingDepth(1000)
                  .build())
          .build();

  private final CorpusSpec spec;
  private final List<String> contentPath;
  private final List<String> idPath;
  private final String contentPointer;
  private final String idPointer;
  private final Paragraphs paragraphs = new Paragraphs();
  private final TextBytes bytes = new TextBytes();
  private final Fingerprinter fingerprinter;
  private final KeyNormalizer normalizer;
  private final NgramHasher ngrams;
  private final MembershipFilter against;
  private long[] grams = new long[256];
  private int[] gramFrom = new int[17];

  // what the walk found
  private ParsedDocument doc;
  private boolean contentFound;
  private boolean idFound;

  /**
   * @param idPath the id field's path, or {@code null} when no id is needed
   * @param against decontamination's evaluation set (read only), or {@code null}
   */
  DocumentParser(
      CorpusSpec spec, List<String> contentPath, List<String> idPath, MembershipFilter against) {
    this.spec = spec;
    this.contentPath = contentPath;
    this.idPath = idPath;
    this.contentPointer = pointer(contentPath);
    this.idPointer = idPath == null ? null : pointer(idPath);
    this.fingerprinter = Fingerprinter.xxh3().withSeed(spec.seed());
    this.normalizer = spec.paragraphNormalizer();
    this.ngrams =
        spec.byNgrams()
            ? new NgramHasher(spec.tokenizer(), spec.normalization(), spec.ngram(), spec.seed())
            : null;
    this.against = against;
  }

  /** The parser of a job's records. */
  static DocumentParser of(CorpusSpec spec, MembershipFilter against) {
    return new DocumentParser(
        spec, spec.content().path(), spec.annotate() != null ? spec.id().path() : null, against);
  }

  /** Parses {@code record[offset, offset + length)}. */
  ParsedDocument parse(byte[] record, int offset, int length) {
    ParsedDocument d = new ParsedDocument();
    String problem = locate(record, offset, length, d);
    if (problem != null) {
      d.problem = problem;
      return d;
    }
    units(d);
    return d;
  }

  /** The text of one document of an evaluation set, or why it has none. */
  String text(byte[] record, int offset, int length, ParsedDocument into) {
    return locate(record, offset, length, into);
  }

  private String locate(byte[] record, int offset, int length, ParsedDocument d) {
    doc = d;
    contentFound = false;
    idFound = false;
    try (JsonParser p = FACTORY.createParser(record, offset, length)) {
      JsonToken t = p.nextToken();
      if (t != JsonToken.START_OBJECT) {
        return t == null ? "empty record" : "not a JSON object (starts with " + t.asString() + ")";
      }
      String problem = walkObject(p, 0, true, idPath != null, record, offset);
      if (problem != null) {
        return problem;
      }
      if (p.nextToken() != null) {
        return "malformed JSON: text after the end of the object";
      }
    } catch (JsonProcessingException e) {
      return "malformed JSON: " + e.getOriginalMessage();
    } catch (IOException e) {
      return "unreadable JSON: " + e.getMessage();
    }
    if (!contentFound) {
      return "no field " + contentPointer;
    }
    if (idPath != null && !idFound) {
      return "no field " + idPointer + ", which names each document in --annotate (--id)";
    }
    return null;
  }

  private String walkObject(
      JsonParser p, int depth, boolean onContent, boolean onId, byte[] record, int offset)
      throws IOException {
    JsonToken t;
    while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      String problem =
          visit(
              p,
              depth,
              onContent && name.equals(contentPath.get(depth)),
              onId && name.equals(idPath.get(depth)),
              record,
              offset);
      if (problem != null) {
        return problem;
      }
    }
    if (t != JsonToken.END_OBJECT) {
      throw new IOException("unexpected " + t);
    }
    return null;
  }

  private String walkArray(
      JsonParser p, int depth, boolean onContent, boolean onId, byte[] record, int offset)
      throws IOException {
    int index = 0;
    while (p.nextToken() != JsonToken.END_ARRAY) {
      String i = Integer.toString(index++);
      String problem =
          visit(
              p,
              depth,
              onContent && contentPath.get(depth).equals(i),
              onId && idPath.get(depth).equals(i),
              record,
              offset);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  private String visit(
      JsonParser p, int depth, boolean onContent, boolean onId, byte[] record, int offset)
      throws IOException {
    onContent &= !contentFound;
    onId &= !idFound;
    if (!onContent && !onId) {
      p.skipChildren();
      return null;
    }
    JsonToken t = p.currentToken();
    boolean contentHere = onContent && depth == contentPath.size() - 1;
    boolean idHere = onId && depth == idPath.size() - 1;
    if (contentHere || idHere) {
      if (contentHere) {
        contentFound = true;
        if (t != JsonToken.VALUE_STRING) {
          p.skipChildren();
          return t == JsonToken.VALUE_NULL
              ? "field " + contentPointer + " is null"
              : "content field " + contentPointer + " is not a string";
        }
        int start = (int) p.currentTokenLocation().getByteOffset();
        doc.text = p.getText();
        int end = (int) p.currentLocation().getByteOffset();
        if (record[offset + start] != '"' || end <= start || record[offset + end - 1] != '"') {
          end = closingQuote(record, offset + start, offset) + 1; // not where Jackson said
        }
        doc.valueStart = start;
        doc.valueEnd = end;
      }
      if (idHere) {
        idFound = true;
        doc.idJson =
            switch (t) {
              case VALUE_STRING -> JsonStrings.quote(p.getText());
              case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT, VALUE_TRUE, VALUE_FALSE, VALUE_NULL ->
                  p.getText();
              default -> {
                p.skipChildren();
                yield null;
              }
            };
        if (doc.idJson == null) {
          return "field " + idPointer + " is an object or an array, not an id";
        }
      }
      return null;
    }
    boolean deeperContent = onContent && depth < contentPath.size() - 1;
    boolean deeperId = onId && depth < idPath.size() - 1;
    if (t == JsonToken.START_OBJECT) {
      return walkObject(p, depth + 1, deeperContent, deeperId, record, offset);
    }
    if (t == JsonToken.START_ARRAY) {
      return walkArray(p, depth + 1, deeperContent, deeperId, record, offset);
    }
    return null;
  }

  /** The index of the quote that closes the JSON string whose opening quote is at {@code at}. */
  private static int closingQuote(byte[] record, int at, int offset) {
    for (int i = at + 1; i < record.length; i++) {
      if (record[i] == '\\') {
        i++;
      } else if (record[i] == '"') {
        return i - offset;
      }
    }
    throw new IllegalStateException("a JSON string without its closing quote");
  }

  /** Cuts the text into paragraphs and hashes what its units are judged by. */
  private void units(ParsedDocument d) {
    String text = d.text;
    paragraphs.split(text, spec.split());
    int n = paragraphs.count;
    d.paragraphs = n;
    d.start = Arrays.copyOf(paragraphs.start, n);
    d.end = Arrays.copyOf(paragraphs.end, n);
    d.spanEnd = Arrays.copyOf(paragraphs.spanEnd, n);
    d.judged = new boolean[n];
    for (int k = 0; k < n; k++) {
      d.judged[k] = judged(text, d.start[k], d.end[k]);
    }
    switch (spec.mode()) {
      case PARAGRAPHS -> paragraphFingerprints(d);
      case NGRAMS -> paragraphGrams(d);
      case DECONTAMINATE -> decontaminate(d);
    }
  }

  /** Whether a paragraph is judged: not white space only, and long enough. */
  private boolean judged(String text, int s, int e) {
    int min = spec.minParagraphChars();
    if (e - s < min) {
      return false; // fewer chars, so fewer code points
    }
    if (e - s < 2 * min && text.codePointCount(s, e) < min) {
      return false;
    }
    return !Paragraphs.isBlank(text, s, e);
  }

  private void paragraphFingerprints(ParsedDocument d) {
    long[] fp = new long[2 * d.paragraphs];
    String text = d.text;
    for (int k = 0; k < d.paragraphs; k++) {
      if (!d.judged[k]) {
        continue;
      }
      int len;
      if (normalizer.isIdentity()) {
        len = bytes.encode(text, d.start[k], d.end[k]);
      } else {
        String s = normalizer.normalize(text.substring(d.start[k], d.end[k]));
        len = bytes.encode(s, 0, s.length());
      }
      fingerprinter.fingerprintInto(bytes.bytes, 0, len, fp, k);
    }
    d.fingerprints = fp;
  }

  private void paragraphGrams(ParsedDocument d) {
    if (gramFrom.length < d.paragraphs + 1) {
      gramFrom = new int[d.paragraphs + 1];
    }
    int total = 0;
    String text = d.text;
    for (int k = 0; k < d.paragraphs; k++) {
      gramFrom[k] = total;
      if (!d.judged[k]) {
        continue;
      }
      int tokens = ngrams.tokenize(text, d.start[k], d.end[k]);
      int g = ngrams.gramsOf(tokens);
      room(total + g);
      total += ngrams.fingerprints(grams, total);
    }
    gramFrom[d.paragraphs] = total;
    d.gramFrom = Arrays.copyOf(gramFrom, d.paragraphs + 1);
    d.grams = Arrays.copyOf(grams, 2 * total);
  }

  private void decontaminate(ParsedDocument d) {
    boolean whole = spec.unit() == CorpusSpec.Unit.DOCUMENT;
    int units = whole ? 1 : d.paragraphs;
    d.unitGrams = new int[units];
    d.unitMatched = new int[units];
    d.matchStart = new int[units];
    d.matchEnd = new int[units];
    String text = d.text;
    for (int u = 0; u < units; u++) {
      if (!whole && !d.judged[u]) {
        continue;
      }
      int tokens =
          whole
              ? ngrams.tokenize(text, 0, text.length())
              : ngrams.tokenize(text, d.start[u], d.end[u]);
      int g = ngrams.gramsOf(tokens);
      room(g);
      ngrams.fingerprints(grams, 0);
      int first = -1;
      int last = -1;
      int matched = 0;
      for (int i = 0; i < g; i++) {
        if (against.mightContain(grams[2 * i], grams[2 * i + 1])) {
          matched++;
          if (first < 0) {
            first = i;
          }
          last = i;
        }
      }
      d.unitGrams[u] = g;
      d.unitMatched[u] = matched;
      if (matched > 0) {
        d.matchStart[u] = ngrams.tokenStart[first];
        d.matchEnd[u] = ngrams.tokenEnd[ngrams.lastToken(last)];
      }
    }
  }

  /**
   * Adds the n-grams of {@code text}'s paragraphs (or, {@code whole}, of all of it) to {@code set}:
   * an evaluation document's, for decontamination.
   *
   * @return how many n-grams it has (repeats included)
   */
  long addGrams(String text, boolean whole, MembershipFilter set) {
    long added = 0;
    if (whole) {
      return addGrams(text, 0, text.length(), set);
    }
    paragraphs.split(text, spec.split());
    for (int k = 0; k < paragraphs.count; k++) {
      added += addGrams(text, paragraphs.start[k], paragraphs.end[k], set);
    }
    return added;
  }

  private long addGrams(String text, int from, int to, MembershipFilter set) {
    int g = ngrams.gramsOf(ngrams.tokenize(text, from, to));
    room(g);
    ngrams.fingerprints(grams, 0);
    for (int i = 0; i < g; i++) {
      set.put(grams[2 * i], grams[2 * i + 1]);
    }
    return g;
  }

  /** Counts what {@code text} has, for sizing: paragraphs judged, and n-grams of those. */
  long[] count(String text) {
    paragraphs.split(text, spec.split());
    long judgedParagraphs = 0;
    long gramCount = 0;
    for (int k = 0; k < paragraphs.count; k++) {
      if (judged(text, paragraphs.start[k], paragraphs.end[k])) {
        judgedParagraphs++;
        if (ngrams != null) {
          gramCount +=
              ngrams.gramsOf(ngrams.tokenize(text, paragraphs.start[k], paragraphs.end[k]));
        }
      }
    }
    return new long[] {judgedParagraphs, gramCount};
  }

  private void room(int grams) {
    if (this.grams.length < 2 * grams) {
      this.grams = Arrays.copyOf(this.grams, Math.max(2 * grams, 2 * this.grams.length));
    }
  }

  private static String pointer(List<String> path) {
    StringBuilder sb = new StringBuilder();
    for (String p : path) {
      sb.append('/').append(p.replace("~", "~0").replace("/", "~1"));
    }
    return sb.toString();
  }
}
