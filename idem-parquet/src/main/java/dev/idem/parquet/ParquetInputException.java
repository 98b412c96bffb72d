package dev.idem.parquet;

/**
 * A Parquet input the job cannot use, said in the user's terms: the file, where in it, and what is
 * wrong (a damaged footer, a missing key column, a schema unlike the first file's, a null key).
 */
public final class ParquetInputException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  ParquetInputException(String message) {
    super(message);
  }

  ParquetInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
