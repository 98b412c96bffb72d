package dev.idem.cli;

import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.SnapshotException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Opens a snapshot for a command, turning every reason it cannot be used into one line. */
final class SnapshotLoader {

  /** {@code --load}: how to bring the bits into memory. */
  enum Mode {
    /** Map when the filter would take more than a quarter of the heap, else read. */
    AUTO,
    HEAP,
    MAP
  }

  private SnapshotLoader() {}

  static FilterSnapshot open(Path file, Mode mode) {
    try {
      FilterSnapshot.LoadMode loadMode =
          switch (mode) {
            case HEAP -> FilterSnapshot.LoadMode.HEAP;
            case MAP -> FilterSnapshot.LoadMode.MAP;
            case AUTO ->
                Files.size(file) > Runtime.getRuntime().maxMemory() / 4
                    ? FilterSnapshot.LoadMode.MAP
                    : FilterSnapshot.LoadMode.HEAP;
          };
      return FilterSnapshot.open(file, loadMode);
    } catch (SnapshotException e) {
      throw new UserException(e.getMessage() + " (rebuild it with 'idem filter build')", e);
    } catch (NoSuchFileException e) {
      throw new UserException(file + ": no such file", e);
    } catch (AccessDeniedException e) {
      throw new UserException(file + ": permission denied", e);
    } catch (IOException e) {
      throw new UserException(file + ": cannot read: " + e.getMessage(), e);
    } catch (IllegalStateException e) {
      throw new UserException(file + ": " + e.getMessage(), e);
    }
  }
}
