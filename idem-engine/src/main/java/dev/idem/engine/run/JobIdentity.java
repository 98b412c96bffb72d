package dev.idem.engine.run;

import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a resumable job is, as a resume must find it again: its kind, its inputs and the settings
 * that decide its output. A job's state keeps the identity it started with; a command that resumes
 * it must have the same one ({@link #differencesFrom}), or it is refused ({@link
 * StateMismatchException}), since the state's positions and verdicts were made for that job alone.
 *
 * <p>Inputs are compared by what they are, not by how they are named: the same file reached by
 * another relative path, a symbolic link or from another working directory is the same input
 * ({@link InputFile#isSameFileAs}); a file whose size or first 64 KiB changed is not. What changed
 * further inside an input is the input check's question ({@code InputCheck}), against what the job
 * read of it.
 *
 * <p>Settings are named in the library's words ({@code "key"}, {@code "max record bytes"}), and the
 * CLI names the option behind each. Options that change no output (progress, checkpoint interval,
 * thread count) are not settings.
 *
 * @param job the kind of job: {@code "dedup"}, {@code "sort-dedup"}, {@code "near-dup"}, ...
 * @param inputs the inputs, in order, as identified when the job began
 * @param settings each setting's value as text, in a stable order
 */
public record JobIdentity(String job, List<InputFile> inputs, Map<String, String> settings) {

  public JobIdentity {
    Objects.requireNonNull(job, "job");
    inputs = List.copyOf(inputs);
    Map<String, String> copy = new LinkedHashMap<>();
    if (settings != null) {
      settings.forEach((k, v) -> copy.put(k, v == null ? NONE : v));
    }
    settings = copy;
  }

  /**
   * One way a command differs from the job in a state.
   *
   * @param setting the setting ({@code "key"}), or {@link #INPUTS}
   * @param detail what differs, naming both sides
   */
  public record Difference(String setting, String detail) {
    @Override
    public String toString() {
      return (setting.equals(INPUTS) ? "the inputs differ" : setting + " differs") + ": " + detail;
    }
  }

  /** The value of a setting that is not set (an output not asked for). */
  public static final String NONE = "(none)";

  /** The name of the inputs in a {@link Difference}. */
  public static final String INPUTS = "inputs";

  /** This identity with other settings; the job and inputs stay. */
  public JobIdentity withSettings(Map<String, String> settings) {
    return new JobIdentity(job, inputs, settings);
  }

  /**
   * How {@code now} (this command) differs from this identity (the state's): one entry per input
   * and per setting that differs, each naming both values; empty when they match.
   */
  public List<Difference> differencesFrom(JobIdentity now) {
    return differencesFrom(now, "this command");
  }

  /** {@link #differencesFrom(JobIdentity)}, naming {@code now} as {@code nowName}. */
  public List<Difference> differencesFrom(JobIdentity now, String nowName) {
    List<Difference> d = new ArrayList<>();
    if (!job.equals(now.job)) {
      d.add(new Difference("job", "the state is of " + job + ", " + nowName + " is " + now.job));
      return d;
    }
    if (inputs.size() != now.inputs.size()) {
      d.add(
          new Difference(
              INPUTS,
              "the state has "
                  + inputs.size()
                  + " input file"
                  + (inputs.size() == 1 ? "" : "s")
                  + ", "
                  + nowName
                  + " has "
                  + now.inputs.size()));
    } else {
      for (int i = 0; i < inputs.size(); i++) {
        InputFile was = inputs.get(i);
        InputFile is = now.inputs.get(i);
        if (!was.isSameFileAs(is)) {
          d.add(
              new Difference(
                  INPUTS,
                  "input "
                      + (i + 1)
                      + " is "
                      + was.path()
                      + " in the state, "
                      + is.path()
                      + " in "
                      + nowName));
        } else if (was.differenceFrom(is) != null) {
          d.add(new Difference(INPUTS, was.differenceFrom(is)));
        }
      }
    }
    Set<String> names = new LinkedHashSet<>(settings.keySet());
    names.addAll(now.settings.keySet());
    for (String name : names) {
      String was = settings.getOrDefault(name, NONE);
      String is = now.settings.getOrDefault(name, NONE);
      if (!was.equals(is)) {
        d.add(new Difference(name, "the state has " + was + ", " + nowName + " has " + is));
      }
    }
    return d;
  }

  private static final Pattern LEGACY_INPUT =
      Pattern.compile("(.+?) \\((-?\\d+) bytes, head CRC32C (\\d+)\\)(?:, |$)");

  /**
   * The inputs as states written before the state-file encoding describe them: {@code "PATH (SIZE
   * bytes, head CRC32C CRC), ..."}.
   */
  public static List<InputFile> legacyInputs(String described) throws JobException {
    List<InputFile> inputs = new ArrayList<>();
    Matcher m = LEGACY_INPUT.matcher(described == null ? "" : described);
    int at = 0;
    while (at < (described == null ? 0 : described.length()) && m.find(at) && m.start() == at) {
      inputs.add(
          new InputFile(
              m.group(1),
              Long.parseLong(m.group(2)),
              Long.parseLong(m.group(3)),
              null,
              null,
              null));
      at = m.end();
    }
    if (described == null || at != described.length()) {
      throw new JobException("cannot read the inputs of an older state: " + described);
    }
    return inputs;
  }
}
