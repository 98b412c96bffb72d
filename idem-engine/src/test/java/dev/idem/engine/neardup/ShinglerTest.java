package dev.idem.engine.neardup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class ShinglerTest {

  private static final Shingler WORDS5 =
      new Shingler(Tokenizer.WORDS, 5, TextNormalization.DEFAULT);

  @Test
  void wordShinglesAreConsecutiveWordRuns() {
    assertThat(WORDS5.shingles("a b c d e f g")).hasSize(3);
    // repeated shingles count once
    assertThat(WORDS5.shingles("a b c d e a b c d e")).hasSize(5);
  }

  @Test
  void normalisationMakesCaseWidthAndPunctuationIrrelevant() {
    assertThat(WORDS5.shingles("Hello, World! The ﬁne  day,\tis here."))
        .isEqualTo(WORDS5.shingles("hello world the fine day is here"));
    Shingler raw = new Shingler(Tokenizer.WORDS, 5, TextNormalization.parse("none"));
    assertThat(raw.shingles("Hello world the fine day"))
        .isNotEqualTo(raw.shingles("hello world the fine day"));
  }

  @Test
  void aShortDocumentIsOneShingleAndAnEmptyOneHasNone() {
    assertThat(WORDS5.shingles("only three words")).hasSize(1);
    assertThat(WORDS5.shingles("only three words")).isNotEqualTo(WORDS5.shingles("only three"));
    assertThat(WORDS5.shingles(" ... !! ")).isEmpty();
    assertThat(WORDS5.shingles("")).isEmpty();
  }

  @Test
  void tokensAreNotConfusedAcrossTheirBoundaries() {
    Shingler pairs = new Shingler(Tokenizer.WORDS, 2, TextNormalization.DEFAULT);
    assertThat(pairs.shingles("ab c")).isNotEqualTo(pairs.shingles("a bc"));
    assertThat(pairs.shingles("a b")).isNotEqualTo(pairs.shingles("b a"));
  }

  @Test
  void characterShinglesReadWhiteSpaceAsOneSpace() {
    Shingler chars = new Shingler(Tokenizer.CHARS, 3, TextNormalization.DEFAULT);
    assertThat(chars.shingles("ab  cd")).isEqualTo(chars.shingles(" ab\n\tcd "));
    assertThat(chars.shingles("abcd")).hasSize(2);
    assertThat(chars.shingles("😀😀😀😀")).hasSize(1); // code points, not UTF-16 units
  }

  @Test
  void normalisationStepsAreParsedAndNamed() {
    assertThat(TextNormalization.parse("punct,nfkc").toString()).isEqualTo("nfkc,punct");
    assertThat(TextNormalization.parse("none").toString()).isEqualTo("none");
    assertThatThrownBy(() -> TextNormalization.parse("nfkc,stem"))
        .hasMessageContaining("unknown step 'stem'");
    assertThatThrownBy(() -> new Shingler(Tokenizer.WORDS, 0, TextNormalization.DEFAULT))
        .hasMessageContaining("--ngram");
  }

  @Property
  void aDocumentOfManyWordsHasAtMostWordsMinusNPlusOneShingles(
      @ForAll @IntRange(min = 1, max = 200) int words, @ForAll @IntRange(min = 1, max = 9) int n) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < words; i++) {
      text.append('w').append(i).append(' ');
    }
    Shingler s = new Shingler(Tokenizer.WORDS, n, TextNormalization.DEFAULT);
    assertThat(s.shingles(text.toString())).hasSize(Math.max(1, words - n + 1));
  }
}
