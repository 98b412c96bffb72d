package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Shell completion offers the words that help and docs use, and that the options accept: lower
 * case, only the choices an option takes, and for the options with a few forms, those forms.
 */
class CompletionTest {

  @Test
  void theScriptOffersLowerCaseWordsAndTheFormsOfExactStoreAndOnBadRecord() {
    Cli.Result r = Cli.run("generate-completion");
    assertThat(r.status()).as(r.err()).isZero();
    String script = r.out();
    assertThat(script)
        .contains("(\"jsonl\" \"csv\" \"tsv\" \"lines\" \"parquet\") # --format values")
        .contains(
            "(\"auto\" \"memory\" \"rocksdb\" \"partitioned\" \"redis://\") # --exact-store values")
        .contains("(\"fail\" \"skip\" \"quarantine=\") # --on-bad-record values")
        .contains("(\"fingerprint\" \"full\") # --key-mode values")
        .doesNotContain("\"JSONL\"")
        .doesNotContain("\"FULL_KEY\"")
        .doesNotContain("\"EXACT_STRIPED\"");
  }

  @Test
  void everyCandidateOfEveryOptionIsAcceptedAsItIsSpelled() throws Exception {
    int checked = 0;
    for (CommandSpec spec : ExamplesTest.commands()) {
      for (OptionSpec o : spec.options()) {
        if (o.completionCandidates() == null || o.arity().max() == 0) {
          continue;
        }
        List<String> words = new ArrayList<>();
        o.completionCandidates().forEach(words::add);
        for (String w : words) {
          assertThat(w)
              .as("%s %s", spec.qualifiedName(), o.longestName())
              .isEqualTo(w.toLowerCase(Locale.ROOT));
          ITypeConverter<?>[] converters = o.converters();
          if (converters.length > 0 && !w.endsWith("=") && !w.endsWith("://")) {
            assertThatCode(() -> converters[0].convert(w))
                .as("%s %s %s", spec.qualifiedName(), o.longestName(), w)
                .doesNotThrowAnyException();
          }
          checked++;
        }
      }
    }
    assertThat(checked).isGreaterThan(50);
  }
}
