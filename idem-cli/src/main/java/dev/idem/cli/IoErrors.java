package dev.idem.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * An I/O failure in words a person can act on. {@code java.nio.file}'s exceptions carry only the
 * path as their message ({@code ro/out.jsonl}), which reads as no reason at all.
 */
final class IoErrors {

  private IoErrors() {}

  /**
   * Whether {@code e} is a write to a pipe whose reader has gone ({@code idem ... | head -1}): not
   * an error to report, only a reason to stop, as SIGPIPE stops a C program.
   */
  static boolean isClosedPipe(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException
          && t.getMessage() != null
          && t.getMessage().endsWith("Broken pipe")) {
        return true;
      }
    }
    return false;
  }

  static String describe(IOException e) {
    if (!(e instanceof FileSystemException f) || f.getFile() == null) {
      return String.valueOf(e.getMessage());
    }
    String file = f.getOtherFile() == null ? f.getFile() : f.getFile() + " -> " + f.getOtherFile();
    String why =
        e instanceof AccessDeniedException
            ? "permission denied"
            : e instanceof NoSuchFileException
                ? "no such file or directory"
                : e instanceof FileAlreadyExistsException
                    ? "already exists"
                    : e instanceof NotDirectoryException
                        ? "not a directory"
                        : e instanceof DirectoryNotEmptyException
                            ? "directory not empty"
                            : f.getReason();
    return why == null ? file : file + ": " + why;
  }
}
