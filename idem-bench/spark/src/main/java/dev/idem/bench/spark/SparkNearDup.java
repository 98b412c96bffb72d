package dev.idem.bench.spark;

import static org.apache.spark.sql.functions.col;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.ml.feature.HashingTF;
import org.apache.spark.ml.feature.MinHashLSH;
import org.apache.spark.ml.feature.MinHashLSHModel;
import org.apache.spark.ml.feature.NGram;
import org.apache.spark.ml.feature.RegexTokenizer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Near-duplicate pairs with Spark MLlib as its documentation builds them, in local mode on all
 * cores: words ({@code RegexTokenizer} on single spaces; the corpus is normalised), word 5-grams
 * ({@code NGram}), a binary {@code HashingTF} of 2³⁰ features, {@code MinHashLSH} with the given
 * number of hash tables, and {@code approxSimilarityJoin} of the corpus with itself at Jaccard
 * distance ≤ 1 − threshold. Spark computes the exact Jaccard distance of each candidate pair on the
 * feature vectors, so every pair it returns is at or above the threshold (up to feature hash
 * collisions).
 *
 * <p>Spark's MinHashLSH has no AND-amplification: each hash table is one MinHash (a band of one
 * row), so T tables make a pair at similarity s a candidate with probability 1 − (1 − s)^T.
 *
 * <p>{@code SparkNearDup CORPUS TABLES THRESHOLD SEED PAIRS_OUT}: writes the accepted pairs {@code
 * a<TAB>b} (positions, a < b); clustering them is the harness's.
 */
public final class SparkNearDup {
  private SparkNearDup() {}

  public static void main(String[] args) throws IOException {
    String corpus = args[0];
    int tables = Integer.parseInt(args[1]);
    double threshold = Double.parseDouble(args[2]);
    long seed = Long.parseLong(args[3]);
    Path pairsOut = Path.of(args[4]);
    SparkSession spark =
        SparkSession.builder()
            .master("local[*]")
            .appName("near-dup")
            .config("spark.ui.enabled", "false")
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    Dataset<Row> docs = spark.read().schema("id INT, text STRING").json(corpus);
    Dataset<Row> words =
        new RegexTokenizer()
            .setInputCol("text")
            .setOutputCol("words")
            .setPattern(" ")
            .setToLowercase(false)
            .transform(docs);
    Dataset<Row> grams = new NGram().setN(5).setInputCol("words").setOutputCol("grams").transform(words);
    Dataset<Row> features =
        new HashingTF()
            .setInputCol("grams")
            .setOutputCol("features")
            .setNumFeatures(1 << 30)
            .setBinary(true)
            .transform(grams)
            .select("id", "features");
    MinHashLSHModel model =
        new MinHashLSH()
            .setNumHashTables(tables)
            .setSeed(seed)
            .setInputCol("features")
            .setOutputCol("hashes")
            .fit(features);
    Dataset<Row> hashed = model.transform(features).cache();
    // Spark keeps pairs with distance < the threshold given; the tiny excess makes it ≤
    List<Row> pairs =
        model
            .approxSimilarityJoin(hashed, hashed, 1 - threshold + 1e-9, "distance")
            .filter(col("datasetA.id").lt(col("datasetB.id")))
            .select(col("datasetA.id"), col("datasetB.id"))
            .collectAsList();
    try (BufferedWriter out = Files.newBufferedWriter(pairsOut, StandardCharsets.UTF_8)) {
      for (Row pair : pairs) {
        out.write(pair.getInt(0) + "\t" + pair.getInt(1) + "\n");
      }
    }
    System.err.println("spark: " + pairs.size() + " pairs at or above " + threshold);
    spark.stop();
  }
}
