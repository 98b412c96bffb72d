package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class KeyNormalizerTest {

  @Test
  void identityChangesNothingAndIsTheDefault() {
    KeyNormalizer id = KeyNormalizer.identity();
    assertThat(id.isIdentity()).isTrue();
    byte[] raw = {(byte) 0xff, 0, 'A', ' '};
    assertThat(id.normalize(raw, 0, raw.length)).isSameAs(raw);
    assertThat(id.normalize(" Mixed Case ")).isEqualTo(" Mixed Case ");
    assertThat(KeyNormalizer.parse("")).isEqualTo(id);
    assertThat(KeyNormalizer.parse("identity")).isEqualTo(id);
    assertThat(id.spec()).isEqualTo("identity");
  }

  @Test
  void eachStepDoesWhatItsNameSays() {
    assertThat(KeyNormalizer.identity().trim().normalize("\u00a0\t key  \n")).isEqualTo("key");
    assertThat(KeyNormalizer.identity().lowerCase().normalize("ÄBC-İ")).isEqualTo("äbc-i̇");
    // "é" as e + combining acute becomes the single precomposed code point
    assertThat(KeyNormalizer.identity().nfc().normalize("e\u0301")).isEqualTo("\u00e9");
    assertThat(KeyNormalizer.identity().collapseWhitespace().normalize("a \t\u3000 b\n\nc"))
        .isEqualTo("a b c");
    assertThat(KeyNormalizer.identity().stripPrefix("https://").normalize("https://x/https://"))
        .isEqualTo("x/https://");
    assertThat(KeyNormalizer.identity().stripPrefix("www.").normalize("example.com"))
        .isEqualTo("example.com");
  }

  @Test
  void stepsRunInTheOrderGiven() {
    KeyNormalizer trimThenStrip = KeyNormalizer.parse("trim,strip-prefix=www.");
    KeyNormalizer stripThenTrim = KeyNormalizer.parse("strip-prefix=www.,trim");
    assertThat(trimThenStrip.normalize("  www.a.com")).isEqualTo("a.com");
    assertThat(stripThenTrim.normalize("  www.a.com")).isEqualTo("www.a.com");
  }

  @Test
  void bytesAreNormalizedAsUtf8() {
    KeyNormalizer n = KeyNormalizer.parse("trim,lowercase,nfc");
    byte[] key = " CAFE\u0301 ".getBytes(StandardCharsets.UTF_8);
    assertThat(new String(n.normalize(key, 0, key.length), StandardCharsets.UTF_8))
        .isEqualTo("caf\u00e9");
  }

  @Test
  void invalidUtf8IsRefusedWithItsPosition() {
    byte[] key = {'a', 'b', (byte) 0xC3, 'x'};
    assertThatThrownBy(() -> KeyNormalizer.parse("lowercase").normalize(key, 0, key.length))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not valid UTF-8")
        .hasMessageContaining("0xc3 at offset 2");
  }

  @Test
  void unknownStepsAreRefusedWithTheKnownOnes() {
    assertThatThrownBy(() -> KeyNormalizer.parse("trim,lowr"))
        .hasMessageContaining("unknown normalizer step 'lowr'")
        .hasMessageContaining("lowercase");
    assertThatThrownBy(() -> KeyNormalizer.parse("strip-prefix="))
        .hasMessageContaining("non-empty prefix");
  }

  @Provide
  Arbitrary<KeyNormalizer> normalizers() {
    Arbitrary<String> step =
        Arbitraries.oneOf(
            Arbitraries.of("trim", "lowercase", "nfc", "collapse-whitespace"),
            Arbitraries.strings()
                .withChars("abc./:é ")
                .ofMinLength(1)
                .ofMaxLength(6)
                .filter(s -> !s.isBlank() && s.strip().equals(s))
                .map(p -> "strip-prefix=" + p));
    return step.list().ofMaxSize(5).map(steps -> KeyNormalizer.parse(String.join(",", steps)));
  }

  @Property
  void specRoundTrips(@ForAll("normalizers") KeyNormalizer n, @ForAll String key) {
    KeyNormalizer again = KeyNormalizer.parse(n.spec());
    assertThat(again).isEqualTo(n);
    assertThat(again.normalize(key)).isEqualTo(n.normalize(key));
  }

  @Property
  void textNormalizationIsIdempotentForTheSimpleSteps(@ForAll String key) {
    KeyNormalizer n = KeyNormalizer.parse("nfc,collapse-whitespace,trim");
    assertThat(n.normalize(n.normalize(key))).isEqualTo(n.normalize(key));
  }

  @Test
  void equalKeysAfterNormalizationShareAFingerprint() {
    Fingerprinter fp = Fingerprinter.xxh3().withNormalizer(KeyNormalizer.parse("trim,lowercase"));
    assertThat(fp.fingerprint("  Example.COM")).isEqualTo(fp.fingerprint("example.com"));
    byte[] raw = " EXAMPLE.com ".getBytes(StandardCharsets.UTF_8);
    assertThat(fp.fingerprint(raw)).isEqualTo(fp.fingerprint("example.com"));
    assertThat(List.of(fp.fingerprint("a"), fp.fingerprint("b"))).doesNotHaveDuplicates();
  }
}
