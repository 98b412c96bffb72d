"""idem-bench's Python contenders: the first line of each key, in input order.

  dedup.py polars IN OUT [FIELD]   Polars: each line one string column (the separator is the NUL
                                   byte, which the benchmark's data never holds); keyed by the JSON
                                   field FIELD (str.json_path_match), else by the whole line; the
                                   lines written back unquoted, as read.
  dedup.py polars-parquet GLOB OUT KEY
                                   Polars over Parquet files, streaming: the first row of each KEY
                                   in file and row order, sunk to one zstd Parquet file.
  dedup.py duckdb SQL...           DuckDB: runs each statement in an in-memory database (the
                                   harness writes them: DuckDbSql.dedup).

Prints one line of name=value words: the library's version and the rows written.
"""
import sys


def polars(src, dst, field):
    import polars as pl

    df = pl.read_csv(src, has_header=False, separator="\x00", quote_char=None,
                     schema={"line": pl.String}, missing_utf8_is_empty_string=True)
    if field:
        key = pl.col("line").str.json_path_match("$." + field).alias("key")
        df = df.with_columns(key).unique(subset=["key"], keep="first", maintain_order=True)
        df = df.select("line")
    else:
        df = df.unique(keep="first", maintain_order=True)
    df.write_csv(dst, include_header=False, quote_style="never")
    print(f"polars={pl.__version__} rows={df.height}")


def polars_parquet(glob, dst, key):
    import polars as pl

    (pl.scan_parquet(glob)
       .unique(subset=[key], keep="first", maintain_order=True)
       .sink_parquet(dst, compression="zstd"))
    rows = pl.scan_parquet(dst).select(pl.len()).collect().item()
    print(f"polars={pl.__version__} rows={rows}")


def duckdb(statements):
    import duckdb as db

    con = db.connect()
    rows = ""
    for sql in statements:
        result = con.execute(sql).fetchall()
        rows = result[0][0] if result and result[0] else rows
    print(f"duckdb={db.__version__} rows={rows}")


if __name__ == "__main__":
    if sys.argv[1] == "polars":
        polars(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    elif sys.argv[1] == "polars-parquet":
        polars_parquet(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "duckdb":
        duckdb(sys.argv[2:])
    else:
        sys.exit(__doc__)
