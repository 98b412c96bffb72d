package dev.idem.engine.run;

import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.records.VerifyInputs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * One run of a resumable job over its state directory: the protocol every job that checkpoints to a
 * file follows ({@code sort-dedup}, {@code near-dup}, {@code split}, the partitioned method's
 * plan), in the order of docs/DESIGN.md's "The job kernel":
 *
 * <ol>
 *   <li><b>Open</b> the directory and take its lock ({@link StateDirectory}); a directory that
 *       holds anything else is refused.
 *   <li><b>Identify</b>: a new state is written with this command's {@link JobIdentity} and its
 *       start checkpoint before anything else; an existing one must have the same identity, or the
 *       command is refused ({@link StateMismatchException}).
 *   <li><b>Check the inputs</b> against what the job read of them ({@link #checkInputs}).
 *   <li>The job <b>cuts its outputs back</b> to the checkpoint's marks ({@code
 *       OutputFile.open(path, mark)}), runs its phases and <b>commits</b> checkpoints ({@link
 *       #commit}), the last one saying it is done.
 * </ol>
 *
 * <p>The state file holds the identity and the last checkpoint together, in the {@link StateFile}
 * encoding (checksummed, replaced atomically), so a checkpoint is one rename: after a crash the
 * file holds the last checkpoint whole. Whatever a checkpoint names (runs, judgements, output
 * lengths) is synced before it is committed, and what it no longer names is deleted only after.
 *
 * @param <C> the job's checkpoint
 */
public final class ResumableRun<C> implements AutoCloseable {

  /** The kernel's own crash points; jobs add theirs ({@link CrashPoints}). */
  public enum Step {
    /** A new state: its file written with the identity and the start checkpoint. */
    STATE_CREATED,
    /** A checkpoint committed (the state file replaced); what it dropped not yet deleted. */
    CHECKPOINT_COMMITTED
  }

  /**
   * How a kind of job keeps its state.
   *
   * @param job the kind of job, as in its identity ({@code "sort-dedup"})
   * @param fileName the state file in the directory, which makes it that job's state
   * @param version the layout version of the checkpoint this idem writes
   * @param checkpointType the checkpoint's class
   * @param legacy how a state file written before the {@link StateFile} encoding is read; {@code
   *     null}: there were none
   * @param committed whether a checkpoint holds work a resume must keep; a state whose checkpoint
   *     holds none (a job killed before its first commit) starts again as this command asks, even
   *     if it differs
   */
  public record Layout<C>(
      String job,
      String fileName,
      int version,
      Class<C> checkpointType,
      LegacyReader<C> legacy,
      Predicate<C> committed) {}

  /** Reads a state file written before the {@link StateFile} encoding. */
  @FunctionalInterface
  public interface LegacyReader<C> {
    /** The identity and checkpoint a bare JSON state file holds. */
    Saved<C> read(StateFile.Contents legacy) throws IOException;
  }

  /** What a state file holds: the job's identity and its last checkpoint. */
  public record Saved<C>(JobIdentity identity, C checkpoint) {}

  private final Layout<C> layout;
  private final StateDirectory dir;
  private final CrashPoints crash;
  private final boolean resumed;
  private JobIdentity identity;
  private C checkpoint;

  private ResumableRun(
      Layout<C> layout, StateDirectory dir, CrashPoints crash, boolean resumed, Saved<C> saved) {
    this.layout = layout;
    this.dir = dir;
    this.crash = crash;
    this.resumed = resumed;
    this.identity = saved.identity();
    this.checkpoint = saved.checkpoint();
  }

  /**
   * Opens (creating) the state of a job in {@code directory} and takes its lock.
   *
   * @param identity what this command asks
   * @param start the checkpoint of a job that has done nothing yet
   * @throws StateMismatchException when the state holds another job
   * @throws JobException when the directory is not such a state, is damaged or in use
   */
  public static <C> ResumableRun<C> open(
      Layout<C> layout, Path directory, JobIdentity identity, C start, CrashPoints crash)
      throws IOException {
    StateDirectory dir = StateDirectory.open(directory, layout.fileName());
    try {
      Saved<C> saved = read(layout, dir.path().resolve(layout.fileName()));
      if (saved != null && !layout.committed().test(saved.checkpoint())) {
        saved = null; // nothing a resume must keep: begin again as this command asks
      }
      if (saved == null) {
        ResumableRun<C> run =
            new ResumableRun<>(layout, dir, crash, false, new Saved<>(identity, start));
        run.write();
        crash.reached(Step.STATE_CREATED);
        return run;
      }
      List<JobIdentity.Difference> differences = saved.identity().differencesFrom(identity);
      if (!differences.isEmpty()) {
        throw new StateMismatchException(directory, layout.job(), differences);
      }
      return new ResumableRun<>(layout, dir, crash, true, saved);
    } catch (IOException | RuntimeException e) {
      dir.close();
      throw e;
    }
  }

  /** Reads the state file of {@code layout}, or {@code null} when there is none. */
  public static <C> Saved<C> read(Layout<C> layout, Path file) throws IOException {
    StateFile.Contents c = StateFile.read(file, layout.job(), layout.version());
    if (c == null) {
      return null;
    }
    if (c.version() == StateFile.LEGACY_VERSION) {
      if (layout.legacy() == null) {
        throw StateFile.damaged(file, "it has no idem state header");
      }
      return layout.legacy().read(c);
    }
    return c.as(Json.type(Saved.class, layout.checkpointType()));
  }

  /** Whether this run resumes a job that had committed work. */
  public boolean resumed() {
    return resumed;
  }

  /** The job's identity as its state has it (its inputs as they were when it began). */
  public JobIdentity identity() {
    return identity;
  }

  /** The last checkpoint committed (the start checkpoint for a new job). */
  public C checkpoint() {
    return checkpoint;
  }

  public Path directory() {
    return dir.path();
  }

  /**
   * Refuses to resume over inputs that no longer hold what the job read of them ({@link
   * InputCheck}: sampled blocks by default, everything read with {@link VerifyInputs#FULL}, an
   * input modified since checked in full), and reports what the user should know.
   *
   * @param now the inputs as they are
   * @return the check's outcome; {@link #vouched} puts what it vouched for into the position
   * @throws JobException naming each input and what changed
   */
  public InputCheck.Outcome checkInputs(
      List<InputFile> now, InputPosition at, VerifyInputs mode, JobListener listener)
      throws IOException {
    return checkInputs(identity.inputs(), now, at, mode, listener);
  }

  /**
   * {@link #checkInputs(List, InputPosition, VerifyInputs, JobListener)} for a job whose state
   * keeps its inputs' identities ({@code started}) itself.
   */
  public static InputCheck.Outcome checkInputs(
      List<InputFile> started,
      List<InputFile> now,
      InputPosition at,
      VerifyInputs mode,
      JobListener listener)
      throws IOException {
    List<InputRead> ended = at.ended() == null ? List.of() : at.ended();
    InputCheck.Outcome o =
        InputCheck.run(
            started,
            now,
            at.fileIndex(),
            at.offset(),
            at.current(),
            f -> f < ended.size() ? ended.get(f) : null,
            mode);
    o.notes().forEach(listener::note);
    o.warnings().forEach(listener::warning);
    return o;
  }

  /**
   * {@code at} with the reads {@code outcome} vouched for (inputs modified since but checked in
   * full and found as read) in place of the old ones, so that the next resume need not read them
   * again.
   */
  public static InputPosition vouched(InputPosition at, InputCheck.Outcome outcome) {
    List<InputRead> ended = new ArrayList<>(at.ended());
    outcome
        .vouched()
        .forEach(
            (f, read) -> {
              while (ended.size() <= f) {
                ended.add(null);
              }
              ended.set(f, read);
            });
    return new InputPosition(at.fileIndex(), at.offset(), at.line(), at.current(), ended);
  }

  /**
   * Commits {@code next}: the state file is replaced atomically, holding this run's identity and
   * {@code next}. Everything {@code next} names must be synced before.
   */
  public void commit(C next) throws IOException {
    checkpoint = next;
    write();
    crash.reached(Step.CHECKPOINT_COMMITTED);
  }

  /** Reaches a job's own crash point. */
  public void reached(Enum<?> step) {
    crash.reached(step);
  }

  private void write() throws IOException {
    StateFile.write(
        dir.path().resolve(layout.fileName()),
        layout.job(),
        layout.version(),
        new Saved<>(identity, checkpoint));
  }

  @Override
  public void close() throws IOException {
    dir.close();
  }
}
